"""Keyframe extraction (media_tools.keyframes, 1 fps, JPEG out) against ffmpeg decode-only.

Baseline: `ffmpeg -i V -vf fps=1 -f null -` on the same video in the same run, i.e. the cost of
decoding alone. Prints, per video, the median of N interleaved runs of each, as wall time and as CPU
time (user + system of the ffmpeg processes, plus this process for ours), and the ratios ours /
baseline (goal <= 1.3). On a shared machine the wall ratio swings with other people's load; the CPU
ratio is the steadier measure of the work done. The load average is printed before and after.
Usage: python bench/media.py [VIDEO ...] [--runs N]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from media_tools import keyframes  # noqa: E402

DEFAULT_VIDEOS = [ROOT / "demo" / "saro_roundabout_topdown_1080p_3fps.mp4"]
SHARED = ROOT.parent / "shared" / "testdata" / "videos"


def _cpu() -> float:
    """CPU seconds used so far by this process and the children it has waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _measure(fn: Callable[[], None]) -> tuple[float, float]:
    """(wall s, CPU s) of one call."""
    wall, cpu = time.perf_counter(), _cpu()
    fn()
    return time.perf_counter() - wall, _cpu() - cpu


def baseline(video: Path) -> None:
    subprocess.run(
        ["ffmpeg", "-v", "error", "-nostdin", "-i", str(video), "-vf", "fps=1", "-f", "null", "-"], check=True
    )


def ours(video: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        keyframes(video, Path(tmp), fps=1.0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("videos", nargs="*", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    videos = args.videos or sorted(SHARED.glob("*.mp4")) or DEFAULT_VIDEOS
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(
        f"{'video':<42}{'decode wall':>12}{'ours wall':>10}{'ratio':>7}{'decode CPU':>12}{'ours CPU':>10}{'ratio':>7}"
    )
    for video in videos:
        base, mine = [], []
        for _ in range(args.runs):  # interleaved, so drift of the machine hits both alike
            base.append(_measure(lambda v=video: baseline(v)))
            mine.append(_measure(lambda v=video: ours(v)))
        bw, mw = (statistics.median(r[0] for r in runs) for runs in (base, mine))
        bc, mc = (statistics.median(r[1] for r in runs) for runs in (base, mine))
        print(f"{video.name[:41]:<42}{bw:>11.3f}s{mw:>9.3f}s{mw / bw:>6.2f}x{bc:>11.3f}s{mc:>9.3f}s{mc / bc:>6.2f}x")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
