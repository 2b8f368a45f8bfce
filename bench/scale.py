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
import tempfile
from pathlib import Path

# Run as a script, bench/ is first on the path: server start, clients and memory are shared helpers;
# the served trees and the measurement steps are scale_served.py and scale_steps.py.
import scale_steps
from marks import ROOT, _checkout
from scale_served import CLIENTS, PG, Served, _environment, _prepare
from scale_steps import _step_reads, _step_release, _step_review, _step_units, _step_units_with_views, _step_views


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
    scale_steps.PROFILE = args.profile  # read by scale_steps._profiled
    if args.profile:
        Path(args.profile).mkdir(parents=True, exist_ok=True)
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
