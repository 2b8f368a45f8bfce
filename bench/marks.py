"""Mark save latency through the API on the embedded default (gunicorn as `make run` starts it,
SQLite in WAL mode), at 1 and 8 concurrent clients, each autosaving its own mark with PATCH.

Clients authenticate as scripts do (a token) and as the workspace page does (a session cookie and
a CSRF token). Baseline in the same run: GET /api/review/reasons/ (authentication, routing and
JSON, no database write), so the table shows what saving a mark adds. Goal: p99 <= 50 ms at 8
clients. Usage: python bench/marks.py [--requests N] [--workers W --threads T]
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SECRET_KEY = "bench-only-" + os.urandom(8).hex()
sys.path.insert(0, str(ROOT))

from config import env  # noqa: E402 -- the server's own defaults

SETUP = """
import json
from django.test import Client
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
browser = Client()
browser.force_login(user)  # a session as the login page makes it
print(json.dumps({{"token": Token.objects.create(user=user).key, "session": browser.cookies["sessionid"].value,
                  "marks": marks}}))
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(SKYMARK_DATA_DIR=str(data), DJANGO_DEBUG="0", PYTHONPATH=str(ROOT))
    env["SECRET_KEY"] = SECRET_KEY  # one per run: the server must accept the session set up before it
    return env


def _prepare(data: Path, clients: int) -> dict:
    env = _env(data)
    run = {"cwd": ROOT, "env": env, "check": True, "capture_output": True, "text": True}
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], **run)  # type: ignore[call-overload]
    video = ROOT / "demo" / "kraklanda_highway_topdown_1080p_3fps.mp4"
    code = SETUP.format(video=str(video), clients=clients)
    out = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], **run)  # type: ignore[call-overload]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _serve(data: Path, port: int, workers: int | None, threads: int | None) -> subprocess.Popen[bytes]:
    # The server as `make run` starts it (config/gunicorn.py), unless told otherwise.
    cmd = [str(BIN / "gunicorn"), "-c", "config/gunicorn.py", "config.wsgi:application", "--bind", f"127.0.0.1:{port}"]
    cmd += ["--workers", str(workers)] if workers else []
    cmd += ["--threads", str(threads)] if threads else []
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
    """One annotator's connection: a token as scripts send it, or a session cookie and CSRF token
    as the workspace page sends them."""

    def __init__(self, port: int, auth: dict[str, str]) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {"Content-Type": "application/json"}
        if "token" in auth:
            self.headers["Authorization"] = f"Token {auth['token']}"
        else:
            csrf = os.urandom(16).hex()
            self.headers.update(Cookie=f"sessionid={auth['session']}; csrftoken={csrf}", **{"X-CSRFToken": csrf})

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[float, int, dict]:
        start = time.perf_counter()
        self.conn.request(method, path, body=json.dumps(body) if body else None, headers=self.headers)
        response = self.conn.getresponse()
        data = response.read()
        return time.perf_counter() - start, response.status, json.loads(data) if data else {}


def _saves(port: int, auth: dict[str, str], mark_id: int, n: int, start: Any) -> list[float]:
    client, out = Client(port, auth), []
    _, _, mark = client.call("GET", f"/api/marks/{mark_id}/")
    version = mark["version"]
    start.wait()
    for i in range(n):
        body = {"version": version, "geometry": {"type": "Point", "coordinates": [100 + i % 50, 120]}}
        took, status, mark = client.call("PATCH", f"/api/marks/{mark_id}/", body)
        if status != 200:
            raise SystemExit(f"save failed: HTTP {status} {mark}")
        version = mark["version"]
        out.append(took)
    return out


def _reads(port: int, auth: dict[str, str], n: int, start: Any) -> list[float]:
    client, out = Client(port, auth), []
    start.wait()
    for _ in range(n):
        took, status, _ = client.call("GET", "/api/review/reasons/")
        if status not in (200, 403):
            raise SystemExit(f"baseline failed: HTTP {status}")
        out.append(took)
    return out


def _run(clients: int, target, args_for) -> list[float]:  # type: ignore[no-untyped-def]
    """Each client is its own process, as each annotator is their own browser: client threads in
    one process would queue on its interpreter lock and add that wait to the measured latency."""
    with multiprocessing.Manager() as manager:
        start = manager.Barrier(clients)
        with multiprocessing.Pool(clients) as pool:
            jobs = [pool.apply_async(target, (*args_for(i), start)) for i in range(clients)]
            return [x for job in jobs for x in job.get()]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=200, help="saves per client")
    parser.add_argument("--port", type=int, default=0)
    # Default: the shape config/gunicorn.py gives (`make run`).
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    port = args.port or _free_port()
    with tempfile.TemporaryDirectory(prefix="skymark-bench-") as tmp:
        setup = _prepare(Path(tmp), 8)
        server = _serve(Path(tmp), port, args.workers, args.threads)
        try:
            workers, threads = args.workers or env.WEB_CONCURRENCY, args.threads or env.WEB_THREADS
            print(f"gunicorn: {workers} workers x {threads} threads, {os.cpu_count()} cores shared with the clients")
            print(f"{'auth':>8}{'clients':>8}{'baseline p50':>14}{'p99':>8}{'save p50':>10}{'p99':>8}  (ms)")
            n, marks = args.requests, setup["marks"]
            for auth in ({"token": setup["token"]}, {"session": setup["session"]}):
                # Warm up every server thread (imports, connections, caches) before measuring.
                _run(8, _reads, lambda i, a=auth: (port, a, 20))
                for clients in (1, 8):
                    base = _run(clients, _reads, lambda i, a=auth: (port, a, n))
                    saves = _run(clients, _saves, lambda i, a=auth: (port, a, marks[i], n))
                    print(
                        f"{next(iter(auth)):>8}{clients:>8}{_pct(base, 0.5):>14.1f}{_pct(base, 0.99):>8.1f}"
                        f"{_pct(saves, 0.5):>10.1f}{_pct(saves, 0.99):>8.1f}"
                    )
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
