"""CVAA geometry on the CPU: per keyframe, placing a frame on the map by matching (GeometricLocator.locate),
and carrying a placement one frame on by chaining (tracking.chain), against the old SIFT baseline
(SiftLocator.locate) on the same frames in the same run.

Scenes: the Saro clip (30 frames, 1920 x 1080, on the 2217 x 1871 orthophoto made from its first frame)
and the 18 Brighton photos (1280 x 720, on the 1865 x 1085 orthomosaic). Printed per scene: the map's
feature extraction (once per map), geometry per frame (median and slowest), chaining per step (the
whole chain's time over its steps: each frame's features once, one match and verification per step), the
same with the features map matching described handed on (FrameFeatureCache, as the placements job does:
a step is then one match and verification), chaining with re-anchoring on the map every 5 steps, the old
baseline per frame and the ratio. Geometry per frame includes describing the frame.
Goals (issue 20): geometry <= 1 s and chaining <= 0.5 s per keyframe.
Usage: python bench/cvaa_geometry.py [--threads T] [--frames N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("SECRET_KEY", "bench")

SHARED = ROOT.parent / "shared" / "testdata"


def _cpu() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def _timed(fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def bench(name: str, image: np.ndarray, clip: list[np.ndarray]) -> dict[str, float]:
    from media_tools.cvaa import GeometricLocator, SiftLocator, chain
    from media_tools.cvaa.matching import FrameFeatureCache

    locator, build_s = _timed(lambda: GeometricLocator(image))
    old, old_build_s = _timed(lambda: SiftLocator(image))
    geo, base, placed = [], [], []
    cache = FrameFeatureCache(clip)
    for i, frame in enumerate(clip):
        answer, seconds = _timed(lambda f=frame, i=i: locator.locate(f, features=cache[i]))
        geo.append(seconds)
        placed.append(answer)
        base.append(_timed(lambda f=frame: old.locate(f))[1])
    anchor = next(i for i, p in enumerate(placed) if p is not None and p.confidence >= 0.5)
    steps = len(clip) - 1
    _, chain_s = _timed(lambda: chain(clip, {anchor: placed[anchor]}))
    _, shared_s = _timed(lambda: chain(clip, {anchor: placed[anchor]}, features=cache))
    _, remap_s = _timed(lambda: chain(clip, {anchor: placed[anchor]}, locator=locator, reanchor_every=5))
    row = {
        "map features (s)": build_s,
        "old map features (s)": old_build_s,
        "geometry median (s)": statistics.median(geo),
        "geometry slowest (s)": max(geo),
        "slowest frame": int(np.argmax(geo)),
        "chaining / step (s)": chain_s / steps,
        "chaining, features shared / step (s)": shared_s / steps,
        "chaining + map / step (s)": remap_s / steps,
        "old SIFT median (s)": statistics.median(base),
        "geometry / old": statistics.median(geo) / statistics.median(base),
        "placed": sum(p is not None for p in placed),
        "frames": len(clip),
    }
    print(
        f"\n{name}: {image.shape[1]}x{image.shape[0]} map, {len(clip)} frames of {clip[0].shape[1]}x{clip[0].shape[0]}"
    )
    for key, value in row.items():
        print(f"  {key:<38} {value:.3f}" if isinstance(value, float) else f"  {key:<38} {value}")
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2, help="OpenCV threads (default 2)")
    parser.add_argument("--frames", type=int, default=0, help="only the first N frames of each clip")
    args = parser.parse_args()
    cv2.setNumThreads(args.threads)

    import django

    django.setup()
    from annotator.processing.cvaa.evalsets import brighton, saro

    print(f"CPU: {_cpu()}, {os.cpu_count()} cores, OpenCV {cv2.__version__} with {cv2.getNumThreads()} threads")
    print(f"load average at start: {', '.join(f'{v:.1f}' for v in os.getloadavg())}")
    rows = {}
    for data in (saro(SHARED), brighton(SHARED)):
        clip = data.clip[: args.frames] if args.frames else data.clip
        rows[data.name] = bench(data.name, data.image, clip)
    print(f"\nload average at end: {', '.join(f'{v:.1f}' for v in os.getloadavg())}")
    keys = list(next(iter(rows.values())))
    print("\n| scene | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for name, row in rows.items():
        cells = [f"{row[k]:.2f}" if isinstance(row[k], float) else str(row[k]) for k in keys]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
