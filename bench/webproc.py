"""What a web process costs: memory of each gunicorn worker (RSS, and PSS, which splits pages shared
between processes among them) right after start and after a few requests, the time of a server's
first request, and the garbage collector's load in a process that has loaded what a worker loads.

The server runs as `make run` starts it: config/gunicorn.py of the tree being measured (its worker
count, threads and preload setting), SQLite in a fresh data folder. Memory comes from
/proc/<pid>/smaps_rollup (Linux). With `--before REV` a checkout of REV is measured in the same run,
start by start alternately with this tree, and the ratios after/before are printed.

Usage: python bench/webproc.py [--starts N] [--requests N] [--before REV]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Run as a script, bench/ is first on the path: the server set-up is bench/marks.py's, shared.
from marks import PYTHON, ROOT, _checkout, _env, _free_port

# Runs inside `manage.py shell` of the tree being measured: one annotator with a session, one scene.
SETUP = """
import json, pathlib
from annotator.intake.services import SceneSpec, scene_import
from django.test import Client
from tests.factories import AnnotatorFactory
user = AnnotatorFactory(username="bench")
spec = SceneSpec(name="bench", video=pathlib.Path({video!r}), satellite_from_keyframe_s=0.0, annotators=["bench"])
scene = scene_import(spec=spec, created_by=None)
browser = Client()
browser.force_login(user)
print(json.dumps({{"session": browser.cookies["sessionid"].value, "scene": scene.id}}))
"""

# Runs in a fresh interpreter of the tree being measured: what a worker has loaded before its first
# request (the WSGI application and the URL configuration), then the collector's numbers. When the
# tree's gunicorn configuration freezes the loaded objects before forking, so does this.
GC_PROBE = """
import gc, json, os, sys, time
sys.path.insert(0, os.getcwd())
import config.wsgi
from django.urls import get_resolver
get_resolver().url_patterns
gc.collect()
tracked = len(gc.get_objects())
start = time.perf_counter(); gc.collect(); full = time.perf_counter() - start
heavy = sorted(m for m in ("cv2", "matplotlib", "rasterio", "pyvips", "scipy", "pandas", "statsmodels",
                           "sklearn", "torch", "pyarrow", "krippendorff", "datasets") if m in sys.modules)
modules = len(sys.modules)
gc.freeze()
start = time.perf_counter(); gc.collect(); frozen = time.perf_counter() - start
config = {}
exec(open(sys.argv[1]).read(), config)  # the gunicorn settings the server ran with
freezes = "gc.freeze()" in open("config/gunicorn.py").read()
print(json.dumps({"tracked": tracked, "full_gc_s": full, "frozen_gc_s": frozen, "modules": modules,
                  "heavy": heavy, "preload": bool(config.get("preload_app")), "freezes": freezes}))
"""


def _prepare(tree: Path, data: Path) -> dict[str, Any]:
    run = {"cwd": tree, "env": _env(tree, data), "check": True, "capture_output": True, "text": True}
    subprocess.run([*PYTHON, "manage.py", "migrate", "--noinput"], **run)  # type: ignore[call-overload]
    code = SETUP.format(video=str(ROOT / "demo" / "kraklanda_highway_topdown_1080p_3fps.mp4"))
    out = subprocess.run([*PYTHON, "manage.py", "shell", "-c", code], **run)  # type: ignore[call-overload]
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _memory(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of `pid` in bytes."""
    values = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("Rss", "Pss"):
            values[name] = int(rest.split()[0]) * 1024
    return values["Rss"], values["Pss"]


def _workers(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return sorted(int(pid) for pid in children)


def _settled(master: int, expected: int) -> list[int]:
    """The worker pids once all `expected` workers exist and their memory has stopped growing (a
    worker that loads the application itself grows for seconds after it is forked)."""
    last: dict[int, int] = {}
    steady = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        pids = _workers(master)
        sizes = {pid: _memory(pid)[0] for pid in pids}
        steady = steady + 1 if len(pids) == expected and sizes == last else 0
        if steady >= 5:
            return pids
        last = sizes
        time.sleep(0.2)
    raise SystemExit(f"gunicorn workers did not settle: {_workers(master)}")


def _get(port: int, path: str, session: str) -> tuple[int, float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    start = time.perf_counter()
    conn.request("GET", path, headers={"Cookie": f"sessionid={session}"})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response.status, time.perf_counter() - start


def _serve(tree: Tree, port: int) -> subprocess.Popen[bytes]:
    cmd = [*PYTHON, "-m", "gunicorn", "-c", tree.config, "config.wsgi:application", "--bind", f"127.0.0.1:{port}"]
    env = _env(tree.path, tree.data)
    proc = subprocess.Popen(cmd, cwd=tree.path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120  # a preloading master binds only once it has loaded the application
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("gunicorn did not start")


def _worker_count(tree: Path, data: Path) -> int:
    out = subprocess.run(
        [*PYTHON, "-c", "from config import env; print(env.WEB_CONCURRENCY)"],
        cwd=tree,
        env=_env(tree, data),
        check=True,
        capture_output=True,
        text=True,
    )
    return int(out.stdout.strip())


@dataclass
class Tree:
    name: str
    path: Path
    data: Path
    config: str = "config/gunicorn.py"  # relative to the tree, or absolute
    setup: dict[str, Any] = field(default_factory=dict)
    first_s: list[float] = field(default_factory=list)
    started: list[tuple[int, int]] = field(default_factory=list)  # (RSS, PSS) per worker
    served: list[tuple[int, int]] = field(default_factory=list)
    master: tuple[int, int] = (0, 0)  # (RSS, PSS) of the master after the requests
    gc: dict[str, Any] = field(default_factory=dict)


def _one_start(tree: Tree, requests: int) -> None:
    """Start the server, measure its settled workers, time its first request, send `requests`
    more to every page of the path, measure again, stop it."""
    port = _free_port()
    server = _serve(tree, port)
    try:
        pids = _settled(server.pid, _worker_count(tree.path, tree.data))
        started = [_memory(pid) for pid in pids]
        session, scene = tree.setup["session"], tree.setup["scene"]
        paths = ["/api/scenes/", f"/scenes/{scene}/workspace/", f"/api/scenes/{scene}/marks/", f"/scenes/{scene}/"]
        status, first = _get(port, paths[0], session)
        assert status == 200, f"{tree.name}: GET {paths[0]} answered {status}"
        # Several connections at once, so that every worker (not only the first to accept) serves some.
        with contextlib.ExitStack() as stack:
            procs = [
                stack.enter_context(
                    subprocess.Popen(
                        [sys.executable, "-c", _CLIENT, str(port), session, json.dumps(paths), str(requests)],
                        stdout=subprocess.PIPE,
                        text=True,
                    )
                )
                for _ in range(len(pids) * 2)
            ]
            failures = [p.communicate()[0].strip() for p in procs]
        assert not any(failures), f"{tree.name}: {failures}"
        tree.first_s.append(first)
        tree.started = started
        tree.served = [_memory(pid) for pid in _settled(server.pid, len(pids))]
        tree.master = _memory(server.pid)
    finally:
        server.terminate()
        server.wait()


# A client process: `requests` GETs over the paths in turn, on fresh connections (gunicorn's sync
# accept hands each to whichever worker is free); prints anything that did not answer 200.
_CLIENT = """
import http.client, json, sys
port, session, paths, n = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
for i in range(n):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", paths[i % len(paths)], headers={"Cookie": f"sessionid={session}"})
    r = conn.getresponse(); r.read(); conn.close()
    if r.status != 200:
        print(paths[i % len(paths)], r.status)
"""


def _gc(tree: Tree) -> dict[str, Any]:
    out = subprocess.run(
        [*PYTHON, "-c", GC_PROBE, tree.config],
        cwd=tree.path,
        env=_env(tree.path, tree.data),
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _mb(values: list[int]) -> float:
    return statistics.mean(values) / 1e6


def _rows(tree: Tree) -> dict[str, float]:
    return {
        "RSS after start (MB)": _mb([r for r, _ in tree.started]),
        "PSS after start (MB)": _mb([p for _, p in tree.started]),
        "RSS after requests (MB)": _mb([r for r, _ in tree.served]),
        "PSS after requests (MB)": _mb([p for _, p in tree.served]),
        "server PSS, master + workers (MB)": (tree.master[1] + sum(p for _, p in tree.served)) / 1e6,
        "first request (s, median)": statistics.median(tree.first_s),
        "gc-tracked objects": float(tree.gc["tracked"]),
        "full collection, nothing frozen (ms)": tree.gc["full_gc_s"] * 1000,
        # What a worker's full collection costs: the loaded objects are frozen only when the master
        # loaded them and froze them before forking.
        "full collection in a worker (ms)": (
            tree.gc["frozen_gc_s"] if tree.gc["preload"] and tree.gc["freezes"] else tree.gc["full_gc_s"]
        )
        * 1000,
        "modules imported": float(tree.gc["modules"]),
    }


def _report(trees: list[Tree]) -> None:
    for tree in trees:
        print(
            f"{tree.name}: {len(tree.started)} workers, preload_app {'on' if tree.gc['preload'] else 'off'}, "
            f"heavy libraries loaded: {', '.join(tree.gc['heavy']) or 'none'}"
        )
    rows = [_rows(t) for t in trees]
    names = "".join(f"{f'{i}: {t.name}':>26}" for i, t in enumerate(trees, 1))
    header = f"{'per worker (mean) unless said':<40}{names}"
    print(header + "".join(f"{f'{i}/1':>14}" for i in range(2, len(trees) + 1)))
    for key in rows[0]:
        counted = key in ("gc-tracked objects", "modules imported")
        spec = ">26,.0f" if counted else (">26.2f" if "(s" in key else ">26,.1f")
        line = f"{key:<40}" + "".join(format(r[key], spec) for r in rows)
        if len(trees) >= 2 and rows[0][key]:
            line += "".join(f"{r[key] / rows[0][key]:>13.2f}x" for r in rows[1:])
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--starts", type=int, default=3, help="server starts per tree (first request: median)")
    parser.add_argument("--requests", type=int, default=10, help="requests per client after the first")
    parser.add_argument("--no-preload", action="store_true", help="also serve this tree with preload_app off")
    parser.add_argument("--before", help="a git revision to measure in the same run, e.g. the previous release")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="skymark-webproc-") as tmp:
        trees = [Tree("this tree", ROOT, Path(tmp) / "data-this")]
        if args.no_preload:
            # The same settings with preload off: what the lazy imports alone change.
            config = Path(tmp) / "no-preload.py"
            config.write_text('exec(open("config/gunicorn.py").read())\npreload_app = False\n')
            trees.append(Tree("this tree, no preload", ROOT, Path(tmp) / "data-nopreload", str(config)))
        if args.before:
            before = _checkout(args.before, Path(tmp) / "tree")
            trees.insert(0, Tree(f"before ({args.before})", before, Path(tmp) / "data-before"))
        try:
            for tree in trees:
                tree.data.mkdir()
                tree.setup = _prepare(tree.path, tree.data)
            for _ in range(args.starts):  # alternately, so the machine's load falls on both
                for tree in trees:
                    _one_start(tree, args.requests)
            for tree in trees:
                tree.gc = _gc(tree)
            print(f"{os.cpu_count()} cores; {args.starts} starts per tree; memory from the last start")
            _report(trees)
        finally:
            if args.before:
                subprocess.run(["git", "worktree", "remove", "--force", str(Path(tmp) / "tree")], cwd=ROOT)


if __name__ == "__main__":
    main()
