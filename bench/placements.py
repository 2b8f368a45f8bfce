"""The placements job's time on the demo scenes, per keyframe, against an earlier revision in the same sitting.

Each scene (Saro roundabout, Brighton Beach from demo/manifest.json) is imported into a throwaway database,
processed up to its placements (process_scenes, every kind but `placements`), and then placed by
`placements_build` as the job does, timed: the whole build's wall and CPU time, the time in map matching
(GeometricLocator.locate: how many frames, how long each) and in chaining (tracking.chain without the
matching it does inside). The issue's goals per keyframe on CPU: geometry <= 1 s, chaining <= 0.5 s.
Describing a keyframe counts where it happens: in a tree whose job describes each keyframe once
(FrameFeatureCache) and hands the features to matching, that description counts as matching's, as it does
where locate describes the frame itself.

    python bench/placements.py --before f4d2179      # ratio this tree / that revision, same sitting
    python bench/placements.py                       # this tree only
    python bench/placements.py --seed-every 3        # chaining forced: see below

`--seed-every N`: on the demo scenes matching places every keyframe, so chaining places none and has no
figure. With this option matching still runs on every keyframe the job asks about, as in the job, but its
answer is kept for every Nth only and dropped (None: "found nothing") for the others, so the job chains those
as it does where matching fails, with whatever matching handed on (its features, in a tree that shares them).

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


def _counting(chain: Any, placed: list[int]) -> Any:
    """`chain`, counting in `placed` the keyframes it places that were not handed to it placed."""

    def run(frames: Any, seeds: dict[int, Any], **kw: Any) -> Any:
        out = chain(frames, seeds, **kw)
        placed.append(sum(1 for i, p in enumerate(out) if p is not None and i not in seeds))
        return out

    return run


def _thinning(locate: _Timed, chain: _Timed, every: int) -> Any:
    """GeometricLocator.locate (timed by `locate`), its answer kept for every `every`-th keyframe the job
    matches and dropped (None, "found nothing") for the others; checks inside chaining keep theirs."""
    asked = [0]

    def run(self: Any, frame: Any, **kw: Any) -> Any:
        found = locate(self, frame, **kw)
        if chain.running:
            return found
        asked[0] += 1
        return found if (asked[0] - 1) % every == 0 else None

    return run


def child(name: str, seed_every: int = 1) -> dict[str, Any]:
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
        chained: list[int] = []
        chain = _Timed(_counting(tracking.chain, chained))
        locate = _Timed(geometry.GeometricLocator.locate, within=chain)
        geometry.GeometricLocator.locate = _thinning(locate, chain, seed_every)  # type: ignore[method-assign]
        tracking.chain = chain  # type: ignore[assignment]
        describe = _describing(chain)
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
            # a keyframe described for matching (outside chaining) counts as matching's work
            "matching_s": locate.seconds + describe.seconds - describe.seconds_within,
            "chain_s": chain.seconds - locate.seconds_within,  # chaining's own work, its matching out
            "matching_cpu_s": locate.cpu + describe.cpu - describe.cpu_within,
            "chain_cpu_s": chain.cpu - locate.cpu_within,
            "chained": sum(chained),
            "summary": run.summary(),
        }


def _describing(chain: _Timed) -> _Timed:
    """The time spent describing keyframes through a FrameFeatureCache (a tree whose job has one; a
    cache hit costs nothing): outside chaining it is matching's work."""
    from media_tools.cvaa import matching

    cache = getattr(matching, "FrameFeatureCache", None)
    if cache is None:
        return _Timed(lambda: None, within=chain)
    describe = _Timed(cache.__getitem__, within=chain)
    cache.__getitem__ = lambda self, i: describe(self, i)
    return describe


def _run(tree: Path, name: str, seed_every: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", name, "--seed-every", str(seed_every)]
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
        ("  keyframes it placed", lambda r: r["chained"], "{:.0f}"),
        ("  wall per keyframe it placed (s)", lambda r: r["chain_s"] / max(1, r["chained"]), "{:.3f}"),
        ("  CPU per keyframe it placed (s)", lambda r: r["chain_cpu_s"] / max(1, r["chained"]), "{:.3f}"),
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
    parser.add_argument("--seed-every", type=int, default=1, help="chaining gets every Nth match as a seed")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.seed_every)))
        return
    print(f"load average at start: {', '.join(f'{v:.1f}' for v in os.getloadavg())}")
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
                _print(name, {label: _run(tree, name, args.seed_every) for label, tree in trees})
            print(f"\nload average at end: {', '.join(f'{v:.1f}' for v in os.getloadavg())}")
        finally:
            if args.before:
                subprocess.run(["git", "worktree", "remove", "--force", str(Path(tmp) / "tree")], cwd=ROOT, check=False)


if __name__ == "__main__":
    main()
