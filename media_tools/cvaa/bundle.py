"""A training set as plain files, so that CVAA can train on a machine that has torch, numpy and OpenCV
and nothing of the platform (a rented GPU with no database, GDAL or Django).

The platform writes what its training run would draw from (annotator/processing/cvaa/training.py):
every pair source with its weight in the mix, and the fixed validation set. Training on the bundle then
draws the same batches as training in the platform would, up to the frames' JPEG encoding:

    DIR/bundle.json     config, seed, sources [{kind, image, weight, pairs?}], and what the platform
                        recorded (pairs per source, the split by scene)
    DIR/images/*.png    satellite images (lossless)
    DIR/frames/*.jpg    real pairs' frames (quality 95)
    DIR/val.npz         validation frames and windows at the model's input size

On the GPU machine:  python -m media_tools.cvaa.bundle DIR --device cuda --out cvaa.pt [--steps N | --train-s S]
Back in the platform: manage.py train_cvaa --import-trained cvaa.pt (calibrates it on the held-out scenes
and keeps it as a trained checkpoint).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from .config import CvaaConfig
from .pairs import MixedPairs, Pair, PairSource, RealPairs
from .synth import SyntheticPairs

VERSION = 1


@dataclass(frozen=True)
class SourceSpec:
    """One source of the mix: self-supervised crops of an image, or real pairs on it."""

    kind: str  # "synthetic" | "real"
    image: str  # a key into the bundle's images
    weight: float
    pairs: Sequence[Pair] = ()


@dataclass
class Bundle:
    config: CvaaConfig
    seed: int
    images: dict[str, np.ndarray]
    sources: list[SourceSpec]
    val: tuple[np.ndarray, np.ndarray]
    meta: dict[str, Any] = field(default_factory=dict)

    def source(self) -> PairSource:
        """The pair source the platform's run would draw from (training.py's MixedPairs)."""
        kw: dict[str, Any] = {"input_size": self.config.input_size, "rotations": self.config.rotations}
        made: list[PairSource] = []
        for spec in self.sources:
            pixels = self.images[spec.image]
            if spec.kind == "synthetic":
                made.append(SyntheticPairs.from_config(pixels, self.config))
            else:
                made.append(RealPairs(pixels, list(spec.pairs), **kw))
        return MixedPairs(made, [s.weight for s in self.sources])


def _bgr(rgb: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2BGR)


def bundle_write(out: Path, bundle: Bundle) -> None:
    """Write `bundle` into the folder `out` (created; files already there are replaced)."""
    for sub in ("images", "frames"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    for key, pixels in bundle.images.items():
        cv2.imwrite(str(out / "images" / f"{key}.png"), _bgr(pixels))
    sources = []
    for n, spec in enumerate(bundle.sources):
        pairs = []
        for i, pair in enumerate(spec.pairs):
            name = f"frames/{n:02d}-{i:04d}.jpg"
            cv2.imwrite(str(out / name), _bgr(pair.frame), [cv2.IMWRITE_JPEG_QUALITY, 95])
            pairs.append({"frame": name, "quad": np.asarray(pair.quad, float).round(3).tolist()})
        sources.append({"kind": spec.kind, "image": spec.image, "weight": spec.weight, "pairs": pairs})
    np.savez_compressed(out / "val.npz", frames=bundle.val[0], windows=bundle.val[1])
    doc = {
        "version": VERSION,
        "config": bundle.config.to_dict(),
        "seed": bundle.seed,
        "sources": sources,
        "meta": bundle.meta,
    }
    (out / "bundle.json").write_text(json.dumps(doc, indent=1))


def _read(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"{path}: missing or not an image")
    return np.ascontiguousarray(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))


def bundle_read(folder: Path) -> Bundle:
    """The bundle in `folder`. Raises ValueError naming what is missing or of another version."""
    try:
        doc = json.loads((folder / "bundle.json").read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{folder}: not a training bundle ({exc})") from None
    if doc.get("version") != VERSION:
        raise ValueError(f"{folder}: bundle version {doc.get('version')!r}, this reader knows {VERSION}")
    keys = sorted({s["image"] for s in doc["sources"]})
    images = {k: _read(folder / "images" / f"{k}.png") for k in keys}
    sources = [
        SourceSpec(
            kind=s["kind"],
            image=s["image"],
            weight=float(s["weight"]),
            pairs=[Pair(_read(folder / p["frame"]), np.asarray(p["quad"], float)) for p in s["pairs"]],
        )
        for s in doc["sources"]
    ]
    with np.load(folder / "val.npz") as val:
        pair = (val["frames"], val["windows"])
    return Bundle(CvaaConfig.from_dict(doc["config"]), int(doc["seed"]), images, sources, pair, doc.get("meta", {}))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m media_tools.cvaa.bundle", description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--out", type=Path, required=True, help="the checkpoint file to write")
    parser.add_argument("--device", default="", help="cpu, cuda, cuda:N (default: CUDA when there is one)")
    parser.add_argument("--steps", type=int, default=0, help="training steps (default: fitted to --train-s)")
    parser.add_argument("--train-s", type=float, default=300.0, help="with no --steps: about how long to train")
    parser.add_argument("--max-steps", type=int, default=20000)
    parser.add_argument("--pair-workers", type=int, default=None, help="default: a process per spare core on CUDA")
    args = parser.parse_args(argv)
    bundle_train(args)


def bundle_train(args: argparse.Namespace) -> None:
    """Train on the bundle; the checkpoint records the device, the rate and the bundle's split."""
    import torch

    from .checkpoint import checkpoint_bytes, load_checkpoint, write_bytes_atomic
    from .encoder import device_name, pick_device
    from .training import timed_train, train

    bundle = bundle_read(args.folder)
    dev = pick_device(args.device or None)
    source = bundle.source()
    steps = args.steps
    if not steps:  # a short pilot at the same batch and workers gives the rate to fit the time to
        # long enough that the workers' first wave (all started together) does not set the rate
        quiet = bundle.config.with_(eval_every=10**9)  # no validation inside the timed steps
        _, pilot = timed_train(source, quiet, steps=60, seed=bundle.seed, val_pairs=bundle.val, device=str(dev),
                               pair_workers=args.pair_workers)  # fmt: skip
        steps = max(10, min(args.max_steps, int(pilot * args.train_s)))
        print(f"pilot: {pilot:.2f} steps/s; training {steps} steps (about {args.train_s:.0f} s)", flush=True)
    started = time.perf_counter()
    result = train(
        source, bundle.config, steps=steps, seed=bundle.seed, val_pairs=bundle.val, device=str(dev),
        log=lambda line: print(line, flush=True), pair_workers=args.pair_workers,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    ckpt = load_checkpoint(result.checkpoint_bytes)
    loss_first, loss_last = result.loss_summary()
    meta = {
        **ckpt.meta,
        **bundle.meta,
        "device_name": device_name(dev),
        "torch": str(torch.__version__),
        "cpus": os.cpu_count(),
        "batch_size": result.batch_size,
        "seconds": round(seconds, 1),
        "steps_per_s": round(steps / seconds, 3),
        "loss_first": round(loss_first, 4),
        "loss_last": round(loss_last, 4),
        "trained_from": "bundle",
    }
    write_bytes_atomic(args.out, checkpoint_bytes(ckpt.model, meta=meta))
    print(
        f"wrote {args.out}: {steps} steps in {seconds:.0f} s ({steps / seconds:.2f} steps/s) on {meta['device_name']}, "
        f"batch {result.batch_size}, best val recall@1 {result.best_recall_at_1:.3f} at step {result.best_step}",
        flush=True,
    )


if __name__ == "__main__":
    main()
