"""Calibrating a freshly trained CVAA checkpoint on the scenes training held out (split.py).

Each held-out image is indexed with the new model; each of its real pairs is located, and its evidence
(the top window's margin over the rest of the image, media_tools/cvaa/calibration.py) is set against
whether the top box hits the true footprint (IoU >= 0.5). The real pairs alone are fitted on, however
few: self-supervised crops of the held-out maps are far easier than drone photos of them (a GPU-trained
model hit 12 of 64 crops of Brighton Beach and 0 of its 18 photos; fitted together, the photo with the
largest margin got P(hit) 0.79; with the crops' slope and the photos' own level, 0.47, a hair under the
gate, and 0.90 for a made-up set of the same kind). Only when the held-out scenes have no real pair at
all do crops stand in, and the record says so; Platt's smoothing keeps a handful of pairs honest (0 hits
in 18: 1/20 for every box). The calibration is written into the checkpoint's own metadata, so an
exported file carries it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from media_tools.cvaa import CvaaConfig

if TYPE_CHECKING:
    from media_tools.cvaa import Pair

SYNTHETIC_PER_IMAGE = 64


def _pseudo_pairs(image: np.ndarray, config: CvaaConfig, seed: int, count: int) -> list[Pair]:
    from media_tools.cvaa import Pair, SyntheticPairs
    from media_tools.cvaa.pairs import photometric

    source = SyntheticPairs.from_config(image, config)
    rng = np.random.default_rng([seed, 7919])
    out = []
    for _ in range(count):
        quad = source.footprint(rng)
        frame = photometric(source.pyramid.sample_quad(quad, 2 * config.input_size), rng)
        out.append(Pair(frame, quad))
    return out


def calibrate_checkpoint(
    *,
    data: bytes,
    images: dict[int, np.ndarray],
    held_pairs: dict[int, list[Pair]],
    held_images: frozenset[int],
    split: dict[str, Any],
    seed: int,
    device: str | None,
    log: Callable[[str], None],
) -> tuple[bytes, dict[str, Any]]:
    """The checkpoint with its calibration (and the split) in its metadata, and what was recorded:
    {"calibration": dict | None, "calibration_pairs": {"real": n, "self-supervised": m}, "reason": ...}."""
    from media_tools.cvaa import (
        CvaaEncoder,
        WindowIndex,
        calibration_samples,
        checkpoint_bytes,
        evaluate,
        fit_calibration,
        load_checkpoint,
    )

    record: dict[str, Any] = {"calibration": None, "calibration_pairs": {"real": 0, "self-supervised": 0}}
    if not held_images:
        record["reason"] = "no held-out scene: the checkpoint's boxes are gated by the significance test alone"
        log(f"calibration: none ({record['reason']})")
        return data, record
    encoder = CvaaEncoder.from_checkpoint(data, device=device)
    n_real = sum(len(held_pairs.get(i, [])) for i in held_images)
    margins, hits = [], []
    for image_id in sorted(held_images):
        index = WindowIndex.build(images[image_id], encoder)
        pairs = list(held_pairs.get(image_id, []))
        if not n_real:
            pairs = _pseudo_pairs(images[image_id], encoder.config, seed + image_id, SYNTHETIC_PER_IMAGE)
        if not pairs:
            continue
        m, h = calibration_samples(evaluate(partial(index.locate, encoder=encoder, top_k=1), pairs))
        margins.append(m)
        hits.append(h)
        record["calibration_pairs"]["real" if n_real else "self-supervised"] += len(pairs)
    if not n_real:
        record["reason"] = (
            "no real pair in the held-out scenes: self-supervised crops of their maps stand in, "
            "and they are easier than drone frames"
        )
    calibration = fit_calibration(np.concatenate(margins), np.concatenate(hits))
    record["calibration"] = calibration.to_dict()
    log(
        f"calibration on held-out scenes ({record['calibration_pairs']['real']} real, "
        f"{record['calibration_pairs']['self-supervised']} self-supervised pairs):\n{calibration.table()}"
    )
    ckpt = load_checkpoint(data)
    meta = {
        **ckpt.meta,
        "calibration": record["calibration"],
        "split": split,
        "calibration_pairs": record["calibration_pairs"],
    }
    return checkpoint_bytes(ckpt.model, meta=meta), record
