"""CVAA frame localisation: per-frame latency with cached window embeddings against embedding them per frame.

Ours: `WindowIndex.locate(frame)` on an index built once per satellite image (one forward pass for the
frame, one matrix product, ranking and heatmap). Baseline: what a frame would cost without the cache,
i.e. embedding every window of the image for that frame (`WindowIndex.build` without a cache folder) and
then the same query. Also printed: the cache build time per image (cold: embed + write; warm: read),
the forward pass alone, the rest of a query (goal: <= 20 ms), and the SIFT baseline's time per frame.
Timings do not depend on the weights, so the model is the `small` preset freshly initialised (no
download, no training). Runs on the CPU unless --device says otherwise; prints the device.
Usage: python bench/cvaa.py [--runs N] [--threads T] [--device cpu|cuda]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from media_tools.cvaa import CvaaConfig, CvaaEncoder, CvaaModel, SiftLocator, WindowIndex, load_rgb  # noqa: E402

SHARED = ROOT.parent / "shared" / "testdata"


def _median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _scenes() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(name, satellite image, one frame of that ground)."""
    brighton = SHARED / "brighton_beach"
    rotterdam = load_rgb(SHARED / "satellite" / "spacenet6_rotterdam_rgb8_1m_derived.tif")
    return [
        ("rotterdam 300x300", rotterdam, rotterdam[60:200, 40:260]),
        (
            "brighton 1865x1085",
            load_rgb(brighton / "brighton_beach_ortho_utm15n.tif"),
            load_rgb(brighton / "frames" / "DJI_0025.jpg"),
        ),
    ]


def bench_scene(name: str, image: np.ndarray, frame: np.ndarray, encoder: CvaaEncoder, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        start = time.perf_counter()
        index = WindowIndex.build(image, encoder, cache_dir=cache)
        cold_s = time.perf_counter() - start
        warm_ms = _median_ms(lambda: WindowIndex.build(image, encoder, cache_dir=cache), runs)
    index.locate(frame, encoder)  # first call warms up kernels and caches
    cached = _median_ms(lambda: index.locate(frame, encoder), runs * 4)
    forward = _median_ms(lambda: encoder.embed_frames([frame]), runs * 4)
    emb = encoder.embed_frames([frame])[0]
    rest = _median_ms(lambda: index.locate_embedding(emb), runs * 4)
    uncached = _median_ms(lambda: WindowIndex.build(image, encoder).locate(frame, encoder), max(2, runs // 2))
    sift = SiftLocator(image)
    sift_ms = _median_ms(lambda: sift.locate(frame), max(2, runs // 2))
    print(
        f"{name:<20}{len(index.windows):>8}{cold_s:>9.2f}s{warm_ms:>8.1f}ms{forward:>9.1f}ms{rest:>8.1f}ms"
        f"{cached:>9.1f}ms{uncached:>10.0f}ms{uncached / cached:>8.0f}x{sift_ms:>8.0f}ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    config = CvaaConfig.small()
    encoder = CvaaEncoder(CvaaModel(config), device=args.device)
    device = torch.cuda.get_device_name(0) if encoder.device.type == "cuda" else _cpu_name()
    print(f"device: {encoder.device} ({device}), {args.threads} torch threads, torch {torch.__version__}")
    print(f"model: small preset, input {config.input_size} px, {len(config.rotations)} rotations per window")
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(
        f"{'image':<20}{'windows':>8}{'build':>10}{'reload':>10}{'forward':>11}{'rest':>10}"
        f"{'cached':>11}{'uncached':>12}{'ratio':>9}{'SIFT':>10}"
    )
    for name, image, frame in _scenes():
        bench_scene(name, image, frame, encoder, args.runs)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
