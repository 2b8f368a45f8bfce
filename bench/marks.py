"""Mark autosave through the API on the embedded default (gunicorn as `make run` starts it, SQLite in
WAL mode), under the two load models that matter:

- open loop: N annotators (8 and 50), each saving at the workspace's pace: one save after each
  pause, a pause every `--interval` seconds on average (Poisson arrivals). A save's latency counts
  from when it was due, so a slow server cannot hide its queue by delaying the next request.
- closed loop: 8 clients saving back to back, the most the server can take (saves/s, p50/p99).

Clients log in as the workspace page does (a session cookie and a CSRF token); `--auth token` as
scripts do. Baseline in the same run: GET /api/review/reasons/ (authentication, routing, JSON, no
database write). With `--before REV`, the same measurements run against a checkout of REV too,
measurement by measurement with this tree, so "before" and "after" come from one run on one machine.
Goal: open-loop p99 <= 50 ms at 8 annotators.

Usage: python bench/marks.py [--seconds S] [--interval I] [--requests N] [--before REV]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Each tree runs on this virtualenv's packages but none of its .pth files (-S): the checkout installed
# in editable mode would otherwise answer imports an older tree does not have.
PYTHON = [sys.executable, "-S"]
SITE_PACKAGES = os.pathsep.join(dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]))
SECRET_KEY = "bench-only-" + os.urandom(8).hex()
MAX_CLIENTS = 50

# Runs inside `manage.py shell` of the tree being measured. Older trees kept the services in
# annotator/services/; try that first, since the installed checkout would also answer the new path.
SETUP = """
import json, pathlib
try:
    from annotator.services import SceneSpec, mark_create, scene_import
except ImportError:
    from annotator.intake.services import SceneSpec, scene_import
    from annotator.marking.services import mark_create
from django.test import Client
from rest_framework.authtoken.models import Token
from tests.factories import AnnotatorFactory
user = AnnotatorFactory(username="bench")
spec = SceneSpec(name="bench", video=pathlib.Path({video!r}), satellite_from_keyframe_s=0.0, annotators=["bench"])
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


def _env(tree: Path, data: Path, database_url: str = "") -> dict[str, str]:
    """The embedded default (SQLite in `data`), or the database at `database_url`; never the
    caller's DATABASE_URL / REDIS_URL."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(SKYMARK_DATA_DIR=str(data), DJANGO_DEBUG="0", PYTHONPATH=f"{tree}{os.pathsep}{SITE_PACKAGES}")
    env["SECRET_KEY"] = SECRET_KEY  # one per run: the server must accept the session set up before it
    if database_url:
        env["DATABASE_URL"] = database_url
    return env


def _prepare(tree: Path, data: Path) -> dict[str, Any]:
    run = {"cwd": tree, "env": _env(tree, data), "check": True, "capture_output": True, "text": True}
    subprocess.run([*PYTHON, "manage.py", "migrate", "--noinput"], **run)  # type: ignore[call-overload]
    video = ROOT / "demo" / "kraklanda_highway_topdown_1080p_3fps.mp4"
    code = SETUP.format(video=str(video), clients=MAX_CLIENTS)
    out = subprocess.run([*PYTHON, "manage.py", "shell", "-c", code], **run)  # type: ignore[call-overload]
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _serve(
    tree: Path, data: Path, port: int, database_url: str = "", log: Any = None, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    # The server as `make run` starts it (config/gunicorn.py of the tree being measured); `env`
    # replaces the embedded default's environment (bench/scale.py serves PostgreSQL + Redis too).
    cmd = [
        *PYTHON,
        "-m",
        "gunicorn",
        "-c",
        "config/gunicorn.py",
        "config.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
    ]
    out = log if log is not None else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, cwd=tree, env=env or _env(tree, data, database_url), stdout=out, stderr=out)
    for _ in range(300):  # a preloading master binds once it has loaded the application
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("gunicorn did not start")


class Client:
    """One annotator's connection: a session cookie and CSRF token as the workspace page sends
    them, or a token as scripts do."""

    def __init__(self, port: int, auth: dict[str, str]) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {"Content-Type": "application/json"}
        if "token" in auth:
            self.headers["Authorization"] = f"Token {auth['token']}"
        else:
            csrf = os.urandom(16).hex()
            self.headers.update(Cookie=f"sessionid={auth['session']}; csrftoken={csrf}", **{"X-CSRFToken": csrf})

    def call(
        self, method: str, path: str, body: dict[str, Any] | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, Any]]:
        """(status, parsed body); the response's headers stay in `self.last_headers`."""
        data = json.dumps(body) if body else None
        headers = {**self.headers, **(headers or {})}
        try:
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            # The server closed an idle keep-alive connection (pauses outlast gunicorn's
            # keep-alive): connect again, as a browser does; the time counts in the latency.
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
        raw = response.read()
        self.last_headers = response.headers
        return response.status, json.loads(raw) if raw else {}


def _due_times(rng: random.Random, start: float, seconds: float, interval: float) -> list[float]:
    """Poisson arrivals: one pause (and so one save) every `interval` seconds on average."""
    due, t = [], start + rng.expovariate(1 / interval)
    while t < start + seconds:
        due.append(t)
        t += rng.expovariate(1 / interval)
    return due


def _annotator(port: int, auth: dict[str, str], mark_id: int, plan: dict[str, Any], start: Any) -> list[float]:
    """One client. Open loop: a save when each is due (latency from the due time); closed loop
    (`plan["due"]` is None): `plan["n"]` saves back to back. The baseline GETs instead of saving."""
    client, out, version = Client(port, auth), [], 0
    if mark_id:
        version = client.call("GET", f"/api/marks/{mark_id}/")[1]["version"]
    start.wait()
    due = plan["due"](time.time()) if plan["due"] else [None] * plan["n"]
    for i, when in enumerate(due):
        if when is not None:
            time.sleep(max(0.0, when - time.time()))
        began = when if when is not None else time.time()
        if not mark_id:
            status, body = client.call("GET", "/api/review/reasons/")
        else:
            point = {"type": "Point", "coordinates": [100 + i % 50, 120]}
            status, body = client.call("PATCH", f"/api/marks/{mark_id}/", {"version": version, "geometry": point})
            version = body.get("version", version)
        if status != 200:
            raise SystemExit(f"request failed: HTTP {status} {body}")
        out.append(time.time() - began)
    return out


class _Plan:
    """Picklable schedule for the client processes."""

    def __init__(self, seconds: float, interval: float, seed: int) -> None:
        self.seconds, self.interval, self.seed = seconds, interval, seed

    def __call__(self, start: float) -> list[float]:
        return _due_times(random.Random(self.seed), start + 0.2, self.seconds, self.interval)


def _run(port: int, auth: dict[str, str], marks: list[int], clients: int, **plan: Any) -> list[float]:
    """Each client is its own process, as each annotator is their own browser: client threads in
    one process would queue on its interpreter lock and add that wait to the measured latency."""
    with multiprocessing.Manager() as manager:
        start = manager.Barrier(clients)
        with multiprocessing.Pool(clients) as pool:
            jobs = []
            for i in range(clients):
                due = _Plan(plan["seconds"], plan["interval"], seed=i) if plan.get("seconds") else None
                args = (port, auth, marks[i] if marks else 0, {"due": due, "n": plan.get("n", 0)}, start)
                jobs.append(pool.apply_async(_annotator, args))
            return [x for job in jobs for x in job.get()]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


@dataclass
class Server:
    name: str
    port: int
    auth: dict[str, str]
    marks: list[int]


def _open_row(server: Server, clients: int, args: argparse.Namespace) -> str:
    saves = _run(server.port, server.auth, server.marks, clients, seconds=args.seconds, interval=args.interval)
    base = _run(server.port, server.auth, [], clients, seconds=args.seconds / 2, interval=args.interval)
    return (
        f"open   {clients:>3} annotators  saves {len(saves):>5}  p50 {_pct(saves, 0.5):6.1f}  "
        f"p99 {_pct(saves, 0.99):6.1f} ms   baseline GET p50 {_pct(base, 0.5):5.1f}  p99 {_pct(base, 0.99):5.1f}"
    )


def _closed_row(server: Server, args: argparse.Namespace) -> str:
    began = time.perf_counter()
    saves = _run(server.port, server.auth, server.marks, 8, n=args.requests)
    rate = len(saves) / (time.perf_counter() - began)
    base = _run(server.port, server.auth, [], 8, n=args.requests)
    return (
        f"closed   8 clients     saves {len(saves):>5}  p50 {_pct(saves, 0.5):6.1f}  "
        f"p99 {_pct(saves, 0.99):6.1f} ms   {rate:6.0f} saves/s   baseline GET p50 {_pct(base, 0.5):5.1f}"
    )


def _measure(trees: list[tuple[str, Path]], args: argparse.Namespace) -> None:
    """Every tree gets its own data folder and server; each measurement then runs on one tree after
    the other, so a change in the machine's load falls on both rather than on one."""
    with contextlib.ExitStack() as stack:
        servers = []
        for name, tree in trees:
            data = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="skymark-bench-")))
            setup = _prepare(tree, data)
            port = _free_port()
            process = _serve(tree, data, port)
            stack.callback(lambda p=process: (p.terminate(), p.wait()))
            servers.append(Server(name, port, {args.auth: setup[args.auth]}, setup["marks"]))
            _run(port, servers[-1].auth, [], 8, n=20)  # warm every server process (imports, connections, caches)
        steps = [lambda s, c=c: _open_row(s, c, args) for c in (8, 50)] + [lambda s: _closed_row(s, args)]
        for step in steps:
            for server in servers:
                print(f"{server.name:<22} {step(server)}", flush=True)


def _checkout(rev: str, into: Path) -> Path:
    subprocess.run(["git", "worktree", "add", "--detach", str(into), rev], cwd=ROOT, check=True, capture_output=True)
    return into


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=40, help="length of each open-loop run")
    parser.add_argument("--interval", type=float, default=2.0, help="mean seconds between one annotator's saves")
    parser.add_argument("--requests", type=int, default=200, help="closed loop: saves per client")
    parser.add_argument("--auth", choices=("session", "token"), default="session")
    parser.add_argument("--before", help="a git revision to measure in the same run, e.g. the previous release")
    args = parser.parse_args()
    print(
        f"{os.cpu_count()} cores shared by server and clients; auth: {args.auth}; "
        f"open loop: one save per {args.interval:g} s per annotator for {args.seconds:g} s"
    )
    trees = [("this tree", ROOT)]
    with tempfile.TemporaryDirectory(prefix="skymark-before-") as tmp:
        if args.before:
            trees.insert(0, (f"before ({args.before})", _checkout(args.before, Path(tmp) / "tree")))
        try:
            _measure(trees, args)
        finally:
            if args.before:
                subprocess.run(["git", "worktree", "remove", "--force", str(Path(tmp) / "tree")], cwd=ROOT)


if __name__ == "__main__":
    main()
