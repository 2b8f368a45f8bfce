"""Assisted trajectories on the Saro roundabout cars: how far the projected tracks land from the truth.

Ours: each car's labelled path tracked from a box drawn where it is fully in view, backward and forward
(media_tools.assist), projected onto the scene's map image through keyframe placements at the platform's
keyframe rate (1 fps), blended between keyframes. The map image is made the way the demo import makes it:
the clip's frame at 0 s warped north-up with the six surveyed control points (media_tools.geo), 0.11 m/px.
Truth: each label's centre projected through its own frame's control-point homography (per-frame ArUco
detections). Rows beside ours, measured in the same run:
  - per-frame: the same tracks through every frame's own control-point homography (the tracker alone);
  - nearest: through the nearest keyframe's placement instead of the blend;
  - import only: through frame 0's placement alone (what the import's footprint gives when nothing
    places the other keyframes).
Prints mean / p90 error in metres, the share of truth frames tracked, the tracks that fail (a frame
over 2 m from the truth: evaluate.FAILED_M), and seconds of tracking per track.
Usage: python bench/assist.py [--keyframe-fps F] [--json]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from media_tools.assist.evaluate import table  # noqa: E402
from media_tools.assist.saro import SARO, saro_setup  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keyframe-fps", type=float, default=1.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-assist-") as tmp:
        setup = saro_setup(ROOT.parent / "shared" / "testdata" / "videos", Path(tmp), keyframe_fps=args.keyframe_fps)
    rows = setup.rows()
    result = table(
        setup.frames,
        setup.paths,
        truth_homographies=setup.truth,
        rows=rows,
        metres_per_px=setup.metres_per_px,
        clock=time.perf_counter,
    )
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(
        f"{SARO}: {len(setup.frames)} frames, {setup.metres_per_px:.3f} m/px;",
        platform.processor() or platform.machine(),
    )
    print(f"{'row':<40}{'paths':>6}{'tracked':>9}{'mean m':>8}{'p50 m':>7}{'p90 m':>7}", end="")
    print(f"{'<1 m':>7}{'unc m':>7}{'failed':>7}{'s/track':>9}")
    for name, r in result.items():
        per = r.get("seconds_per_path", float("nan"))
        print(
            f"{name:<40}{r['paths']:>6}{r['share_tracked']:>9.3f}{r['mean_m']:>8.2f}{r['p50_m']:>7.2f}"
            f"{r['p90_m']:>7.2f}{r['within_1m']:>7.2f}{r['mean_uncertainty_m']:>7.2f}{r['paths_failed']:>7}{per:>9.3f}"
        )


if __name__ == "__main__":
    main()
