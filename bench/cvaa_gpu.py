"""CVAA training on a GPU against the CPU: steps per second on each with the same data, config and batch,
and the recall the GPU-trained model reaches on held-out real pairs, beside chance and SIFT.

Two parts, since the GPU machine may lack GDAL and PROJ (media_tools.cvaa trains and evaluates on arrays
without them):
  prepare   (here) the Brighton Beach orthomosaic and its 18 photos with their telemetry footprints
            (annotator.processing.cvaa.evalsets, as `manage.py eval_cvaa` uses them) into a folder of
            PNG/JPEG files and one pairs.json.
  run       (on the GPU machine) three measurements, each on CUDA and then on the CPU:
            1. model only: steps on batches drawn from a pool of pairs made beforehand (what the device
               itself gains);
            2. end to end: train() as `manage.py train_cvaa` runs it, synthetic pairs made for each step
               (on CUDA two batches ahead in threads), so the CPU that makes them can bound the GPU;
            3. the main CUDA training, its steps fitted to --train-s from the rate of 2, then recall@1/@5
               (a hit: IoU >= 0.5 with the footprint's box), mean IoU and centre error on the 18 photos,
               which training never saw (it sees self-supervised crops of the orthomosaic only), beside
               random windows (expected and one seeded draw) and the SIFT baseline.
Steps per second are counted from the second step to the last (the first carries start-up work).
Usage: python bench/cvaa_gpu.py            (both parts on a CUDA machine; elsewhere it says so and stops)
       python bench/cvaa_gpu.py prepare --out DIR
       python bench/cvaa_gpu.py run --data DIR [--train-s 150] [--max-steps 3000] [--cpu-steps 4]
       python bench/cvaa_gpu.py run --data DIR --tiny --device cpu   (a smoke run of the script, any machine)
       python bench/cvaa_gpu.py infer --data DIR --checkpoint FILE   (previews' path: CUDA against the CPU)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SHARED = ROOT.parent / "shared" / "testdata"


def prepare(out: Path, testdata: Path) -> None:
    import cv2

    from annotator.processing.cvaa.evalsets import brighton

    data = brighton(testdata)
    (out / "frames").mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out / "map.png"), cv2.cvtColor(data.image, cv2.COLOR_RGB2BGR))
    pairs = []
    for i, pair in enumerate(data.pairs):
        name = f"frames/{i:02d}.jpg"
        cv2.imwrite(str(out / name), cv2.cvtColor(pair.frame, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 95])
        pairs.append({"frame": name, "quad": np.round(pair.quad, 3).tolist()})
    meta = {"name": data.name, "note": data.note, "metres_per_px": data.metres_per_px, "pairs": pairs}
    (out / "pairs.json").write_text(json.dumps(meta, indent=1))
    print(f"wrote {out}: map {data.image.shape[1]}x{data.image.shape[0]}, {len(pairs)} pairs")


def _rgb(path: Path) -> np.ndarray:
    import cv2

    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise SystemExit(f"{path}: cannot be read")
    return np.ascontiguousarray(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))


class PoolPairs:
    """Batches drawn from pairs made once: a step then costs the model's work, not the pairs' making."""

    def __init__(self, frames: np.ndarray, sats: np.ndarray) -> None:
        self.frames, self.sats = frames, sats

    def batch(self, rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        pick = rng.choice(len(self.frames), size=size, replace=size > len(self.frames))
        return self.frames[pick], self.sats[pick]


def _timed_train(source: Any, config: Any, steps: int, device: str, **kw: Any) -> tuple[Any, float]:
    from media_tools.cvaa.training import timed_train

    return timed_train(source, config, steps=steps, seed=0, device=device, **kw)


def _speeds(config: Any, synth: Any, device: str, cpu_steps: int, batch: int) -> dict[str, tuple[float, float]]:
    """{measure: (device steps/s, CPU steps/s)} at the same batch, seed and pairs; on the CPU pairs are
    made inline (its cores train), so both end-to-end rows share one CPU figure."""
    import torch

    from media_tools.cvaa.prefetch import pick_workers

    rows: dict[str, tuple[float, float]] = {}
    pool = PoolPairs(*synth.batch(np.random.default_rng(12345), 2 * batch))
    val = pool.batch(np.random.default_rng(1), 64)
    fixed = config.with_(batch_size=batch, eval_every=10**9)  # no validation inside the timed steps
    _, on_device = _timed_train(pool, fixed, max(cpu_steps, 40), device, val_pairs=val)
    _, on_cpu = _timed_train(pool, fixed, cpu_steps, "cpu", val_pairs=val)
    rows["model only (pairs made beforehand)"] = (on_device, on_cpu)
    _, on_cpu = _timed_train(synth, fixed, cpu_steps, "cpu", val_pairs=val)
    _, on_device = _timed_train(synth, fixed, max(cpu_steps, 20), device, val_pairs=val, pair_processes=False)
    mode, workers = pick_workers(torch.device(device).type, processes=False)
    rows[f"end to end, pairs in {workers} {mode}"] = (on_device, on_cpu)
    mode, workers = pick_workers(torch.device(device).type)
    # 6 rounds of the workers: their first round, all started together, would flatter the rate
    _, on_device = _timed_train(synth, fixed, max(cpu_steps, 6 * max(workers, 1)), device, val_pairs=val)
    rows[f"end to end, pairs in {workers} {mode}"] = (on_device, on_cpu)
    return rows


def _evaluate(data: Path, encoder: Any) -> None:
    from media_tools.cvaa import HIT_IOU, Pair, SiftLocator, WindowIndex, against_baselines, report_table

    meta = json.loads((data / "pairs.json").read_text())
    image = _rgb(data / "map.png")
    pairs = [Pair(_rgb(data / p["frame"]), np.asarray(p["quad"], float)) for p in meta["pairs"]]
    index = WindowIndex.build(image, encoder)
    boxes = index.windows.unique_boxes
    mpp = meta["metres_per_px"]
    locate = lambda f: index.locate(f, encoder, top_k=5)  # noqa: E731
    reports, reachable = against_baselines(locate, boxes, pairs, metres_per_px=mpp, sift=SiftLocator(image).locate)
    print(f"\n{meta['name']}: {meta['note']}; {len(boxes)} windows at {mpp:.3f} m/px")
    print(f"held out: {len(pairs)} pairs, {reachable} with some window at IoU >= {HIT_IOU}")
    print(report_table(reports))


def run(args: argparse.Namespace) -> None:
    import torch

    from media_tools.cvaa import CvaaConfig, CvaaEncoder, SyntheticPairs, pick_device
    from media_tools.cvaa.encoder import device_name

    device = str(pick_device(args.device))
    config = CvaaConfig.tiny() if args.tiny else CvaaConfig.small()
    image = _rgb(args.data / "map.png")
    synth = SyntheticPairs.from_config(image, config)
    batch = args.batch or config.batch_size or (1024 if device.startswith("cuda") else 64)
    print(f"torch {torch.__version__} (CUDA {torch.version.cuda}), numpy {np.__version__}, {os.cpu_count()} CPUs")
    print(f"device: {device} = {device_name(device)}; CPU: {device_name('cpu')}")
    print(f"model: {'tiny' if args.tiny else 'small'} preset, batch {batch}, self-supervised pairs of the map")
    rows = _speeds(config, synth, device, args.cpu_steps, batch)
    _print_speeds(rows, batch, device)
    if args.speeds_only:
        return
    pilot = list(rows.values())[-1][0]
    steps = max(10, min(args.max_steps, int(pilot * args.train_s)))
    print(f"\nmain training: {steps} steps on {device} (fitted to {args.train_s:.0f} s at {pilot:.2f} steps/s)")
    result, rate = _timed_train(synth, config.with_(batch_size=batch), steps, device, log=print)
    print(f"trained in {result.seconds:.0f} s ({rate:.2f} steps/s), best val recall@1 {result.best_recall_at_1:.3f}")
    encoder = CvaaEncoder.from_checkpoint(result.checkpoint_bytes, device=device)
    _evaluate(args.data, encoder)
    _print_speeds(rows, batch, device)


def _print_speeds(rows: dict[str, tuple[float, float]], batch: int, device: str) -> None:
    print(f"\n{'steps/s, batch ' + str(batch):<38}{device:>10}{'cpu':>10}{'ratio':>9}", flush=True)
    for name, (fast, slow) in rows.items():
        print(f"{name:<38}{fast:>10.2f}{slow:>10.3f}{fast / slow:>8.1f}x", flush=True)


def _median(fn: Any, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def infer(args: argparse.Namespace) -> None:
    """The previews' path on CUDA against the CPU with one trained checkpoint: the index build (every
    window embedded), a frame's query (one forward pass, the matrix product, ranking), and whether both
    devices give the same answers (CUDA embeds under bf16 autocast, the CPU in float32)."""
    import torch

    from media_tools.cvaa import CvaaEncoder, WindowIndex, box_iou
    from media_tools.cvaa.encoder import device_name

    meta = json.loads((args.data / "pairs.json").read_text())
    image = _rgb(args.data / "map.png")
    frames = [_rgb(args.data / p["frame"]) for p in meta["pairs"]]
    data = args.checkpoint.read_bytes()
    print(f"torch {torch.__version__}; map {image.shape[1]}x{image.shape[0]}, {len(frames)} photos", flush=True)
    answers: list[list[Any]] = []  # per device, in order (the same device twice compares two runs)
    first, second = args.devices.split(",")
    for device in (first, second):
        encoder = CvaaEncoder.from_checkpoint(data, device=device)
        index = WindowIndex.build(image, encoder)  # the first build also warms CUDA's kernels up
        build = _median(lambda: WindowIndex.build(image, encoder), args.runs)  # noqa: B023
        located = [index.locate(f, encoder, top_k=5) for f in frames]
        query = float(np.median([_median(lambda: index.locate(f, encoder, top_k=5), args.runs) for f in frames]))  # noqa: B023
        answers.append(located)
        print(f"{device:<5} {device_name(device)}: {len(index.windows.unique_boxes)} boxes; build (every window "
              f"embedded) {build:.3f} s; query {query * 1000:.1f} ms per photo (median)", flush=True)  # fmt: skip
    pairs = list(zip(*answers, strict=True))
    same_top1 = sum(bool(np.allclose(a.boxes[0], b.boxes[0])) for a, b in pairs)
    overlap = [float(np.mean([box_iou(box, b.boxes).max() >= 0.99 for box in a.boxes])) for a, b in pairs]
    gap = max(float(np.abs(a.scores - b.scores).max()) for a, b in pairs)
    print(f"{first} against {second}: the same first box on {same_top1}/{len(frames)} photos; top-5 boxes shared "
          f"{np.mean(overlap):.2f} on average; largest score difference {gap:.4f}", flush=True)  # fmt: skip


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="mode")
    prep = sub.add_parser("prepare")
    prep.add_argument("--out", type=Path, required=True)
    prep.add_argument("--testdata", type=Path, default=SHARED)
    go = sub.add_parser("run")
    go.add_argument("--data", type=Path, required=True)
    go.add_argument("--device", default="cuda")
    go.add_argument("--tiny", action="store_true", help="the tiny preset: a smoke run of this script")
    go.add_argument("--batch", type=int, default=0, help="default: the preset's, else 1024 on CUDA, 64 on a CPU")
    go.add_argument("--train-s", type=float, default=150.0, help="about how long the main training runs")
    go.add_argument("--max-steps", type=int, default=3000)
    go.add_argument("--cpu-steps", type=int, default=4, help="steps timed on the CPU (and at least 20 on CUDA)")
    go.add_argument("--speeds-only", action="store_true", help="only the steps/s rows: no main training")
    use = sub.add_parser("infer")
    use.add_argument("--data", type=Path, required=True)
    use.add_argument("--checkpoint", type=Path, required=True)
    use.add_argument("--runs", type=int, default=5)
    use.add_argument("--devices", default="cuda,cpu", help="the two devices compared")
    return parser


def main() -> None:
    parser = _parser()
    args = parser.parse_args()
    if args.mode == "prepare":
        prepare(args.out, args.testdata)
    elif args.mode == "run":
        run(args)
    elif args.mode == "infer":
        infer(args)
    else:  # no mode (`make bench`): both parts where there is a GPU
        import torch

        if not torch.cuda.is_available():
            print("no CUDA device here: skipped (bench/README.md, CVAA on a GPU, says how it was run)")
            return
        with tempfile.TemporaryDirectory(prefix="cvaa-gpu-") as tmp:
            prepare(Path(tmp), SHARED)
            run(parser.parse_args(["run", "--data", tmp]))


if __name__ == "__main__":
    main()
