"""Mark save latency through the API on the embedded default (gunicorn as `make run` starts it,
SQLite in WAL mode), at 1 and 8 concurrent clients, each autosaving its own mark with PATCH.

Baseline in the same run: GET /api/review/reasons/ (authentication, routing and JSON, no database
write), so the ratio shows what saving a mark adds. Goal: p99 <= 50 ms at 8 clients.
Usage: python bench/marks.py [--requests N] [--port P]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SETUP = """
import json
from annotator.services import SceneSpec, scene_import, mark_create
from tests.factories import AnnotatorFactory
from rest_framework.authtoken.models import Token
user = AnnotatorFactory(username="bench")
spec = SceneSpec(name="bench", video=__import__("pathlib").Path({video!r}), satellite_from_keyframe_s=0.0,
                 annotators=["bench"])
scene = scene_import(spec=spec, created_by=None)
image = scene.satellite_images.get()
marks = [mark_create(scene=scene, author=user, satellite_image=image, kind="point", label="car",
                     geometry={{"type": "Point", "coordinates": [100 + i, 100]}}, time_start=1.0).id
         for i in range({clients})]
print(json.dumps({{"token": Token.objects.create(user=user).key, "marks": marks}}))
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(SKYMARK_DATA_DIR=str(data), DJANGO_DEBUG="0", PYTHONPATH=str(ROOT))
    env["SECRET_KEY"] = "bench-only-" + os.urandom(8).hex()
    return env


def _prepare(data: Path, clients: int) -> dict:
    env = _env(data)
    run = {"cwd": ROOT, "env": env, "check": True, "capture_output": True, "text": True}
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], **run)  # type: ignore[call-overload]
    video = ROOT / "demo" / "kraklanda_highway_topdown_1080p_3fps.mp4"
    code = SETUP.format(video=str(video), clients=clients)
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], **run)  # type: ignore[call-overload]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _serve(data: Path, port: int) -> subprocess.Popen[bytes]:
    # The same server settings as scripts/serve.sh (`make run`).
    cmd = [str(BIN / "gunicorn"), "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
           "--workers", "2", "--threads", "4", "--timeout", "120"]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, env=_env(data), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("gunicorn did not start")


class Client:
    def __init__(self, port: int, token: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[float, int, dict]:
        start = time.perf_counter()
        self.conn.request(method, path, body=json.dumps(body) if body else None, headers=self.headers)
        response = self.conn.getresponse()
        data = response.read()
        return time.perf_counter() - start, response.status, json.loads(data) if data else {}


def _saves(port: int, token: str, mark_id: int, n: int, out: list[float]) -> None:
    client, version = Client(port, token), None
    _, _, mark = client.call("GET", f"/api/marks/{mark_id}/")
    version = mark["version"]
    for i in range(n):
        body = {"version": version, "geometry": {"type": "Point", "coordinates": [100 + i % 50, 120]}}
        took, status, mark = client.call("PATCH", f"/api/marks/{mark_id}/", body)
        if status != 200:
            raise SystemExit(f"save failed: HTTP {status} {mark}")
        version = mark["version"]
        out.append(took)


def _reads(port: int, token: str, n: int, out: list[float]) -> None:
    client = Client(port, token)
    for _ in range(n):
        took, status, _ = client.call("GET", "/api/review/reasons/")
        if status not in (200, 403):
            raise SystemExit(f"baseline failed: HTTP {status}")
        out.append(took)


def _run(clients: int, target, args_for) -> list[float]:  # type: ignore[no-untyped-def]
    results: list[list[float]] = [[] for _ in range(clients)]
    threads = [threading.Thread(target=target, args=(*args_for(i), results[i])) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [x for r in results for x in r]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=200, help="saves per client")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    port = args.port or _free_port()
    with tempfile.TemporaryDirectory(prefix="skymark-bench-") as tmp:
        setup = _prepare(Path(tmp), 8)
        server = _serve(Path(tmp), port)
        try:
            print(f"{'clients':>7}{'baseline p50':>14}{'p99':>8}{'save p50':>10}{'p99':>8}{'p50 ratio':>11}  (ms)")
            n, token, marks = args.requests, setup["token"], setup["marks"]
            # Warm up every server thread (imports, connections, caches) before measuring.
            _run(8, _reads, lambda i: (port, token, 20))
            for clients in (1, 8):
                base = _run(clients, _reads, lambda i: (port, token, n))
                saves = _run(clients, _saves, lambda i: (port, token, marks[i], n))
                print(
                    f"{clients:>7}{_pct(base, 0.5):>14.1f}{_pct(base, 0.99):>8.1f}"
                    f"{_pct(saves, 0.5):>10.1f}{_pct(saves, 0.99):>8.1f}"
                    f"{statistics.median(saves) / statistics.median(base):>10.2f}x"
                )
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
