"""CPU time of GeometricLocator.locate on the slowest nadir keyframe: Brighton photo 1 (DJI_0019, at the map's
edge) and its copies turned by 90, 180 and 270 degrees, each located `--repeats` times (median printed).

The approximate search's k-d trees are random (OpenCV's process-wide generator), and whether a frame needs
the exact pass depends on them: `--seed` fixes them, so two trees of the code search the same trees.
`--tree PATH` imports the code from another checkout (e.g. a worktree of main) to compare in one sitting.
Usage: python bench/cvaa_slowest.py [--seed S] [--repeats N] [--tree PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("SECRET_KEY", "bench")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=2, help="OpenCV's random seed before the indexes are built")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2, help="OpenCV threads (default 2)")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose code is timed")
    args = parser.parse_args()
    tree = args.tree.resolve()
    os.chdir(tree)  # the settings put the working directory first on the import path
    sys.path.insert(0, str(tree))
    cv2.setNumThreads(args.threads)

    import django

    django.setup()
    from annotator.processing.cvaa.evalsets import brighton
    from media_tools.cvaa import GeometricLocator
    from media_tools.cvaa.evalviews import rotated_pair

    data = brighton(ROOT.parent / "shared" / "testdata")
    cv2.setRNGSeed(args.seed)
    locator = GeometricLocator(data.image)
    photo = data.pairs[1]
    frames = {"photo 1": photo.frame, **{f"turned {90 * k}": rotated_pair(photo, k).frame for k in (1, 2, 3)}}
    cells = []
    for name, frame in frames.items():
        cpu = []
        for _ in range(args.repeats):
            start = time.process_time()
            placed = locator.locate(frame)
            cpu.append(time.process_time() - start)
        how = "refused" if placed is None else ("exact pass" if placed.details.get("exact_search") else "first pass")
        cells.append(f"{name}: {statistics.median(cpu):.2f} s CPU ({how})")
    import media_tools.cvaa.geometry as geometry

    print(f"{Path(geometry.__file__).parents[2]}: " + " | ".join(cells) + f" | load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
