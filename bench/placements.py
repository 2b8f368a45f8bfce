"""The placements job's time on the demo scenes, per keyframe, against an earlier revision in the same sitting.

Each scene (Saro roundabout, Brighton Beach from demo/manifest.json) is imported into a throwaway database,
processed up to its placements (process_scenes, every kind but `placements`), and then placed by
`placements_build` as the job does, timed: the whole build's wall and CPU time, the time in map matching
(GeometricLocator.locate: how many frames, how long each) and in chaining (tracking.chain without the
matching it does inside). The issue's goals per keyframe on CPU: geometry <= 1 s, chaining <= 0.5 s.

    python bench/placements.py --before f4d2179      # ratio this tree / that revision, same sitting
    python bench/placements.py                       # this tree only

Each tree runs in a process of its own (the earlier one from a temporary git worktree), one after the
other per scene. On a shared machine the wall time swings with others' load; the CPU time less.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCENES = ("Saro roundabout", "Brighton Beach")


def _setup(data: Path) -> None:
    # A throwaway database: the key signs nothing anyone keeps.
    os.environ.update(SKYMARK_DATA_DIR=str(data), DJANGO_SETTINGS_MODULE="config.settings")
    os.environ["SECRET_KEY"] = "bench-only-" + os.urandom(8).hex()
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


class _Timed:
    """Wraps a function, adding up its calls and seconds (the real function runs); `within` counts
    those made while another _Timed runs (matching inside chaining)."""

    def __init__(self, fn: Any, within: _Timed | None = None) -> None:
        self.fn, self.within = fn, within
        self.calls, self.seconds, self.calls_within, self.seconds_within = 0, 0.0, 0, 0.0
        self.cpu, self.cpu_within = 0.0, 0.0  # CPU seconds of the process (OpenCV's threads included)
        self.running = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        started, cpu, self.running = time.perf_counter(), time.process_time(), True
        try:
            return self.fn(*args, **kwargs)
        finally:
            took, used, self.running = time.perf_counter() - started, time.process_time() - cpu, False
            self.calls, self.seconds, self.cpu = self.calls + 1, self.seconds + took, self.cpu + used
            if self.within is not None and self.within.running:
                self.calls_within, self.seconds_within = self.calls_within + 1, self.seconds_within + took
                self.cpu_within += used


def child(name: str) -> dict[str, Any]:
    """Import, process and place one demo scene in this process's tree; the figures as a dict."""
    with tempfile.TemporaryDirectory(prefix="skymark-placements-bench-") as tmp:
        _setup(Path(tmp))
        from django.core.management import call_command

        from annotator.intake.manifest import read_manifest
        from annotator.intake.services import scene_import
        from annotator.models import MediaJob
        from annotator.processing.cvaa.placements import placements_build
        from media_tools.cvaa import geometry, tracking

        [row] = [r for r in read_manifest(Path.cwd() / "demo" / "manifest.json") if r.spec and r.spec.name == name]
        assert row.spec is not None
        row.spec.annotators = []
        scene = scene_import(spec=row.spec, created_by=None)
        kinds = [f"--kind={k}" for k in MediaJob.Kind.values if k != MediaJob.Kind.PLACEMENTS]
        call_command("process_scenes", str(scene.id), *kinds, stdout=open(os.devnull, "w"), stderr=sys.stderr)  # noqa: SIM115
        chain = _Timed(tracking.chain)
        locate = _Timed(geometry.GeometricLocator.locate, within=chain)
        geometry.GeometricLocator.locate = lambda self, frame, **kw: locate(self, frame, **kw)  # type: ignore[method-assign]
        tracking.chain = chain  # type: ignore[assignment]
        cpu, wall = time.process_time(), time.perf_counter()
        run = placements_build(scene=scene)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        return {
            "keyframes": run.keyframes,
            "images": run.images,
            "wall_s": wall,
            "cpu_s": cpu,
            "located": locate.calls,
            "located_in_chain": locate.calls_within,
            "matching_s": locate.seconds,
            "chain_s": chain.seconds - locate.seconds_within,  # chaining's own work, its matching out
            "matching_cpu_s": locate.cpu,
            "chain_cpu_s": chain.cpu - locate.cpu_within,
            "chained": sum(c.get("chaining", 0) for c in run.by_source.values()),
            "summary": run.summary(),
        }


def _run(tree: Path, name: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", name]
    done = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, check=False, env=env)
    if done.returncode:
        raise SystemExit(f"{tree} {name}: failed\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _print(name: str, results: dict[str, dict[str, Any]]) -> None:
    labels = list(results)
    first = next(iter(results.values()))
    n = max(1, first["keyframes"] * first["images"])
    print(f"\n{name}: {first['keyframes']} keyframes x {first['images']} image(s)")
    print(f"{'':<34}" + "".join(f"{label:>22}" for label in labels) + ("   ratio" if len(labels) == 2 else ""))
    rows = [
        ("placements job wall (s)", lambda r: r["wall_s"], "{:.2f}"),
        ("placements job CPU (s)", lambda r: r["cpu_s"], "{:.2f}"),
        ("wall per keyframe (s)", lambda r: r["wall_s"] / n, "{:.3f}"),
        ("map matches (all)", lambda r: r["located"], "{:.0f}"),
        ("  of which re-anchoring checks", lambda r: r["located_in_chain"], "{:.0f}"),
        ("matching per match, wall (s)", lambda r: r["matching_s"] / max(1, r["located"]), "{:.3f}"),
        ("matching per match, CPU (s)", lambda r: r["matching_cpu_s"] / max(1, r["located"]), "{:.3f}"),
        ("chaining, its matching out (s)", lambda r: r["chain_s"], "{:.2f}"),
        ("  CPU (s)", lambda r: r["chain_cpu_s"], "{:.2f}"),
        ("  wall per keyframe it placed (s)", lambda r: r["chain_s"] / max(1, r["chained"]), "{:.3f}"),
    ]
    for label, get, fmt in rows:
        values = [get(r) for r in results.values()]
        ratio = f"{values[1] / values[0]:>8.2f}x" if len(values) == 2 and values[0] else ""
        print(f"{label:<34}" + "".join(f"{fmt.format(v):>22}" for v in values) + ratio)
    for label, r in results.items():
        print(f"  {label}: {r['summary']}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", help="a git revision to measure in the same sitting")
    parser.add_argument("--scene", action="append", choices=SCENES, help="default: both")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child)))
        return
    with tempfile.TemporaryDirectory(prefix="skymark-before-") as tmp:
        trees: list[tuple[str, Path]] = []
        if args.before:
            into = Path(tmp) / "tree"
            subprocess.run(["git", "worktree", "add", "--detach", str(into), args.before], cwd=ROOT, check=True,
                           capture_output=True)  # fmt: skip
            trees.append((f"before ({args.before})", into))
        trees.append(("this tree", ROOT))
        try:
            for name in args.scene or SCENES:
                _print(name, {label: _run(tree, name) for label, tree in trees})
        finally:
            if args.before:
                subprocess.run(["git", "worktree", "remove", "--force", str(Path(tmp) / "tree")], cwd=ROOT, check=False)


if __name__ == "__main__":
    main()
