"""The platform at the benchmark's size (LinkS2Bench: 1,500 scenes, 43,273 satellite images, 17,903
items over the 12 tasks, ~48 marks a scene; 20 annotators, 9 reviewers), served as `make run` serves
it (gunicorn from config/gunicorn.py of the tree being measured), on the embedded default (SQLite,
files) and on PostgreSQL + Redis. bench/scale_seed.py says how the data is seeded and why it has the
services' shape; `--scale 0.2` seeds a fifth.

Measured at 1 and 8 concurrent clients (closed loop: each client its own process, as each person has
their own browser, logged in with a session cookie and CSRF token as the pages are):
- the unit: the 4 marks Label Studio saves in one request (an 8-vertex polygon, a point, an ellipse,
  a 20-vertex timed trajectory) as 4 mark POSTs, then one item compile (Region Interaction of the
  trajectory and the polygon): units/s, p50/p99/max of each request, p99 of the unit;
- opening a scene: its marks as the workspace reads them (GET /api/scenes/ID/marks/?limit=500), of a
  scene with ~50 marks, and again conditionally (If-None-Match) where the server gives an ETag;
- the workspace's items list (GET /api/items/?scene=ID), the review queue (GET /api/review/queue/),
  a blind review step (the queue's first item, its blind page, the blind answer);
- model views: the backlog the units left, and what the tree's Celery worker (started as
  scripts/serve.sh starts it) renders of it in `--render-seconds`;
- the release build (release_create + the build job, bench/release.py's entry points), one process;
- memory of every server process (gunicorn master and workers, the worker and its children): RSS
  and PSS from /proc, idle (after start and warm-up) and peak (sampled during the loads).

With `--before REV` a checkout of REV is seeded and served the same way and every measurement runs
on one tree after the other (each with its own database), so both come from one sitting; ratios
this/before are printed.

Usage: python bench/scale.py [--scale F] [--backend embedded|postgres|both] [--before REV]
                             [--units N] [--reads N] [--render-seconds S] [--no-release] [--views-under-load]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Run as a script, bench/ is first on the path: server start, clients and memory are shared helpers.
from marks import PYTHON, ROOT, _checkout, _env, _free_port, _pct, _serve
from scale_clients import _load, _reads, _review, _units
from webproc import _memory

PG = "postgres://postgres@127.0.0.1:5432"
REDIS = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7")
CLIENTS = 8
PROFILE = ""  # --profile DIR

# Runs in `manage.py shell` of the tree: sessions for 8 annotators and 8 reviewers, each annotator's
# scene to draw on and scene to read (another of theirs, with its seeded ~50 marks).
SESSIONS = """
import json
from django.contrib.auth import get_user_model
from django.test import Client
from annotator.models import Assignment, Scene
out = {"annotators": [], "reviewers": []}
for i in range(8):
    user = get_user_model().objects.get(username=f"annotator{i}")
    scenes = list(Assignment.objects.filter(annotator=user).order_by("scene_id").values_list("scene_id", flat=True)[:2])
    image = Scene.objects.get(id=scenes[0]).satellite_images.order_by("id").first().id
    c = Client(); c.force_login(user)
    out["annotators"].append({"session": c.cookies["sessionid"].value, "draw": scenes[0], "image": image,
                              "read": scenes[-1]})
    reviewer = get_user_model().objects.get(username=f"reviewer{i}")
    c = Client(); c.force_login(reviewer)
    out["reviewers"].append({"session": c.cookies["sessionid"].value})
print(json.dumps(out))
"""
VIEWS = """
import json
from annotator.models import ModelView
print(json.dumps({s: ModelView.objects.filter(state=s).count() for s in ("pending", "running", "succeeded", "failed")}))
"""
# Watches the views while the worker renders: from the first view it stores to the last of the
# backlog (or the time limit), so a backlog drained early is a rate, not the backlog over the limit.
VIEWS_WATCH = """
import json, time
from annotator.models import ModelView
def counts():
    return {{s: ModelView.objects.filter(state=s).count() for s in ("pending", "running", "succeeded", "failed")}}
start, first = time.monotonic(), None
done0 = counts()["succeeded"]
while time.monotonic() - start < {seconds}:
    now, c = time.monotonic(), counts()
    if first is None and c["succeeded"] > done0:
        first = (now, c["succeeded"])
    if c["pending"] + c["running"] == 0:
        break
    time.sleep(0.2)
end = counts()
span = (now - first[0]) if first else 0.0
print(json.dumps({{**end, "first_to_last_s": span, "after_first": end["succeeded"] - first[1] if first else 0,
                  "watched_s": now - start}}))
"""
VIEWS_BETWEEN = """
import datetime, json
from annotator.models import ModelView
a, b = (datetime.datetime.fromtimestamp(t, datetime.timezone.utc) for t in ({start}, {end}))
print(json.dumps({{"queued": ModelView.objects.filter(created_at__range=(a, b)).count(),
                  "stored": ModelView.objects.filter(state="succeeded", finished_at__range=(a, b)).count()}}))
"""
# The release build through its public entry points (as bench/release.py calls them); adapt here
# when the build's entry points change.
RELEASE = """
import json, resource, time
from django.contrib.auth import get_user_model
from review.models import Release
from review.releasing import jobs
from review.releasing.services import release_create
admin = get_user_model().objects.get(username="admin")
start = time.perf_counter()
release_create(version="9.{n}", user=admin, enqueue=False)
frozen = time.perf_counter() - start
release = Release.objects.get(version="9.{n}")
jobs.release_run(release_id=release.id)
release.refresh_from_db()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"freeze_s": frozen, "build_s": time.perf_counter() - start, "state": release.state,
                  "items": release.entries.count(), "peak_rss_mb": peak}}))
"""


# ---- the shapes a unit saves -------------------------------------------------------------------


@dataclass
class Served:
    name: str
    tree: Path
    env: dict[str, str]
    data: Path
    port: int = 0
    web: subprocess.Popen[bytes] | None = None
    people: dict[str, Any] = field(default_factory=dict)
    seeded: dict[str, Any] = field(default_factory=dict)
    figures: dict[str, float] = field(default_factory=dict)
    peak: dict[str, float] = field(default_factory=lambda: {"rss": 0.0, "pss": 0.0})
    units_done: int = 0
    backend: str = "embedded"

    def run(self, *args: str, code: str | None = None) -> str:
        cmd = [*PYTHON, *args] if code is None else [*PYTHON, "manage.py", "shell", "-c", code]
        out = subprocess.run(cmd, cwd=self.tree, env=self.env, capture_output=True, text=True)
        if out.returncode:
            raise SystemExit(f"{self.name}: {' '.join(args) or 'shell'} failed:\n{out.stderr[-3000:]}")
        return out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""

    def pids(self) -> list[int]:
        """The server's processes: gunicorn master and workers, the Celery worker and its children."""
        found = []
        for proc in (self.web, getattr(self, "worker", None)):
            if proc is None or proc.poll() is not None:
                continue
            todo = [proc.pid]
            while todo:
                pid = todo.pop()
                found.append(pid)
                with contextlib.suppress(OSError):
                    todo += [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        return found

    def memory(self) -> tuple[float, float]:
        rss = pss = 0
        for pid in self.pids():
            with contextlib.suppress(OSError, KeyError):
                r, p = _memory(pid)
                rss, pss = rss + r, pss + p
        return rss / 1e6, pss / 1e6


def _environment(name: str, tree: Path, data: Path, backend: str) -> dict[str, str]:
    env = _env(tree, data)
    if backend == "postgres":
        env.update(DATABASE_URL=f"{PG}/bench_scale_{name}", REDIS_URL=REDIS, SKYMARK_BROKER_KEY_PREFIX=f"bench-{name}-")
    return env


def _prepare(s: Served, backend: str, scale: float, key: str) -> None:
    if backend == "postgres":
        db = f"bench_scale_{key}"
        for sql in (f"DROP DATABASE IF EXISTS {db}", f"CREATE DATABASE {db}"):
            subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", sql], check=True, capture_output=True)
    s.run("manage.py", "migrate", "--noinput")
    s.seeded = json.loads(s.run(str(ROOT / "bench" / "scale_seed.py"), json.dumps({"scale": scale})))
    s.people = json.loads(s.run(code=SESSIONS))
    s.port = _free_port()
    s.web = _serve(s.tree, s.data, s.port, env=s.env)
    _load(_reads, s.port, s.people["annotators"], CLIENTS, 2, 0)  # warm every worker


class Sampler:
    """Peak memory of a server's processes, sampled while a load runs."""

    def __init__(self, served: Served) -> None:
        self.served, self.stop = served, threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self.stop.is_set():
            rss, pss = self.served.memory()
            self.served.peak["rss"] = max(self.served.peak["rss"], rss)
            self.served.peak["pss"] = max(self.served.peak["pss"], pss)
            time.sleep(0.25)

    def __enter__(self) -> Sampler:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        self.thread.join()


def _record(s: Served, prefix: str, lat: dict[str, list[float]]) -> None:
    for name, values in sorted(lat.items()):
        s.figures[f"{prefix} {name}: p50 ms"] = _pct(values, 0.5)
        s.figures[f"{prefix} {name}: p99 ms"] = _pct(values, 0.99)
        s.figures[f"{prefix} {name}: max ms"] = max(values) * 1000


@contextlib.contextmanager
def _profiled(s: Served, name: str, clients: int) -> Any:
    """With --profile DIR: py-spy samples every gunicorn process of this tree while the 8-client load
    runs, written as DIR/NAME.svg (flame graph) and DIR/NAME.txt (collapsed stacks)."""
    if not PROFILE or clients != CLIENTS or s.name != "this tree" or s.web is None:
        yield
        return
    spies = [
        subprocess.Popen([str(Path(sys.executable).parent / "py-spy"), "record", "--subprocesses",
                          "--pid", str(s.web.pid), "--rate", "200",
                          "--format", fmt, "-o", str(Path(PROFILE) / f"{name}.{ext}")],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fmt, ext in (("flamegraph", "svg"), ("raw", "txt"))
    ]  # fmt: skip
    time.sleep(1.0)  # attached before the load starts
    try:
        yield
    finally:
        for spy in spies:
            spy.send_signal(2)  # SIGINT: py-spy writes what it sampled
            spy.wait()


def _step_units(s: Served, clients: int, n: int) -> None:
    with Sampler(s), _profiled(s, f"{s.backend}-units", clients):
        lat, wall = _load(_units, s.port, s.people["annotators"], clients, n, s.units_done + 10_000 * clients)
    s.units_done += clients * n
    s.figures[f"{clients} cl unit: units/s"] = clients * n / wall
    _record(s, f"{clients} cl", lat)


def _step_reads(s: Served, clients: int, n: int) -> None:
    with Sampler(s), _profiled(s, f"{s.backend}-reads", clients):
        lat, _ = _load(_reads, s.port, s.people["annotators"], clients, n, 0)
    _record(s, f"{clients} cl", lat)


def _step_review(s: Served, clients: int, n: int) -> None:
    with Sampler(s), _profiled(s, f"{s.backend}-review", clients):
        lat, _ = _load(_review, s.port, s.people["reviewers"], clients, n, 0)
    _record(s, f"{clients} cl", lat)


def _views_worker(s: Served) -> subprocess.Popen:
    """The tree's worker as scripts/serve.sh starts it, its queues including the views'."""
    cmd = [
        *PYTHON,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--pool=solo",
        "-Q",
        # Model views have a queue of their own since the views worker (older trees ignore the name).
        "media,gpu,views",
        "-l",
        "warning",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]  # fmt: skip, as scripts/serve.sh
    worker = subprocess.Popen(cmd, cwd=s.tree, env=s.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    s.worker = worker  # type: ignore[attr-defined]
    return worker


def _step_units_with_views(s: Served, clients: int, n: int) -> None:
    """The units again with the views worker running through the load: views stored during the load
    (by their finished_at) against items compiled in it (views queued), both per second of the load."""
    worker = _views_worker(s)
    try:
        time.sleep(15)  # the worker's start-up (imports, broker), outside the measured window
        began = time.time()
        with Sampler(s):
            _, wall = _load(_units, s.port, s.people["annotators"], clients, n, s.units_done + 20_000 * clients)
        ended = time.time()
        s.units_done += clients * n
        got = json.loads(s.run(code=VIEWS_BETWEEN.format(start=began, end=ended)))
    finally:
        worker.terminate()
        worker.wait()
        s.worker = None  # type: ignore[attr-defined]
    s.figures[f"{clients} cl with the views worker: units (items compiled)/s"] = clients * n / wall
    s.figures[f"{clients} cl with the views worker: views queued/s"] = got["queued"] / (ended - began)
    s.figures[f"{clients} cl with the views worker: views stored/s"] = got["stored"] / (ended - began)


def _step_views(s: Served, seconds: float) -> None:
    """The backlog the units left, then what the tree's worker renders of it in `seconds`."""
    before = json.loads(s.run(code=VIEWS))
    worker = _views_worker(s)
    try:
        with Sampler(s):
            after = json.loads(s.run(code=VIEWS_WATCH.format(seconds=seconds)))
    finally:
        worker.terminate()
        worker.wait()
        s.worker = None  # type: ignore[attr-defined]
    s.figures["model views: backlog after the units"] = before["pending"]
    s.figures["model views: rendered/s by one worker, its start-up included"] = (
        after["succeeded"] - before["succeeded"]
    ) / after["watched_s"]
    # From the first view stored to the last (the worker's start-up left out), the backlog done or not.
    if after["first_to_last_s"] > 0:
        s.figures["model views: rendered/s, first to last"] = after["after_first"] / after["first_to_last_s"]
    s.figures["model views: backlog left"] = after["pending"] + after["running"]
    s.figures["model views: failed"] = after["failed"]


def _step_release(s: Served, n: int) -> None:
    got = json.loads(s.run(code=RELEASE.format(n=n)))
    if got["state"] != "frozen":
        print(f"  {s.name}: release build ended {got['state']}", flush=True)
    s.figures["release: items"] = got["items"]
    s.figures["release: freeze s"] = got["freeze_s"]
    s.figures["release: whole build s"] = got["build_s"]
    s.figures["release: build process peak RSS MB"] = got["peak_rss_mb"]


def _report(backend: str, served: list[Served]) -> None:
    print(f"\n== {backend}: seeded {json.dumps(served[-1].seeded)}")
    names = "".join(f"{s.name:>24}" for s in served)
    print(f"{'figure':<58}{names}" + ("   this/before" if len(served) > 1 else ""))
    for key in served[-1].figures:
        values = [s.figures.get(key) for s in served]
        line = f"{key:<58}" + "".join(f"{v:>24.1f}" if v is not None else f"{'-':>24}" for v in values)
        if len(values) > 1 and values[0] and values[-1] is not None:
            line += f"{values[-1] / values[0]:>14.2f}x"
        print(line, flush=True)


def _bench(backend: str, trees: list[tuple[str, Path]], args: argparse.Namespace) -> None:
    with contextlib.ExitStack() as stack:
        served = []
        if backend == "postgres":  # dropped last, once the servers holding connections are stopped
            for key, _ in trees:
                stack.callback(lambda key=key: subprocess.run(
                    ["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", f"DROP DATABASE IF EXISTS bench_scale_{key}"],
                    capture_output=True))  # fmt: skip
        for key, tree in trees:
            data = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="skymark-scale-")))
            name = "before" if key == "before" else "this tree"
            s = Served(name, tree, _environment(key, tree, data, backend), data, backend=backend)
            print(f"{backend}: seeding {name} at scale {args.scale} ...", flush=True)
            _prepare(s, backend, args.scale, key)
            stack.callback(lambda s=s: (s.web.terminate(), s.web.wait()) if s.web else None)
            rss, pss = s.memory()
            s.figures["memory idle: RSS MB (all server processes)"] = rss
            s.figures["memory idle: PSS MB"] = pss
            served.append(s)
        steps = [lambda s, c=c: _step_units(s, c, args.units) for c in (1, CLIENTS)]
        steps += [lambda s, c=c: _step_reads(s, c, args.reads) for c in (1, CLIENTS)]
        steps += [lambda s, c=c: _step_review(s, c, args.reviews) for c in (1, CLIENTS)]
        steps += [lambda s: _step_views(s, args.render_seconds)]
        if args.views_under_load:
            steps += [lambda s: _step_units_with_views(s, CLIENTS, args.units)]
        if not args.no_release:
            steps += [lambda s: _step_release(s, 1)]
        for step in steps:
            for s in served:
                step(s)
        for s in served:
            s.figures["memory peak: RSS MB (all server processes)"] = s.peak["rss"]
            s.figures["memory peak: PSS MB"] = s.peak["pss"]
        _report(backend, served)


def _postgres_reachable() -> bool:
    try:
        probe = subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", "SELECT 1"], capture_output=True)
    except FileNotFoundError:
        return False
    return probe.returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=float, default=1.0, help="share of the benchmark's size (0.2: a fifth)")
    parser.add_argument("--backend", choices=("embedded", "postgres", "both"), default="both")
    parser.add_argument("--before", help="a git revision to measure in the same sitting")
    parser.add_argument("--units", type=int, default=25, help="units per client")
    parser.add_argument("--reads", type=int, default=25, help="scene reads per client")
    parser.add_argument("--reviews", type=int, default=10, help="blind review steps per client")
    parser.add_argument("--render-seconds", type=float, default=30.0)
    parser.add_argument("--no-release", action="store_true")
    parser.add_argument(
        "--views-under-load", action="store_true", help="the 8-client units again with the views worker running"
    )
    parser.add_argument("--profile", default="", help="folder for py-spy profiles of the 8-client loads")
    args = parser.parse_args()
    global PROFILE
    PROFILE = args.profile
    if PROFILE:
        Path(PROFILE).mkdir(parents=True, exist_ok=True)
    print(f"{os.cpu_count()} cores shared by servers and clients; scale {args.scale}", flush=True)
    with tempfile.TemporaryDirectory(prefix="skymark-scale-before-") as tmp:
        trees = [("this", ROOT)]
        if args.before:
            trees.insert(0, ("before", _checkout(args.before, Path(tmp) / "tree")))
        try:
            for backend in ("embedded", "postgres") if args.backend == "both" else (args.backend,):
                if backend == "postgres" and not _postgres_reachable():
                    print(f"PostgreSQL at {PG} does not answer: its figures are skipped", flush=True)
                    continue
                _bench(backend, trees, args)
        finally:
            if args.before:
                subprocess.run(["git", "worktree", "remove", "--force", str(Path(tmp) / "tree")], cwd=ROOT)


if __name__ == "__main__":
    main()
