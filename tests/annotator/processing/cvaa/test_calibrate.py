"""Calibrating a checkpoint on the held-out scenes (annotator/processing/cvaa/calibrate.py): on their
real pairs alone, however few; crops of their maps stand in only when there is no real pair, and the
record says so."""

from __future__ import annotations

import numpy as np

from annotator.processing.cvaa.calibrate import SYNTHETIC_PER_IMAGE, calibrate_checkpoint
from media_tools.cvaa import Pair, load_checkpoint
from tests.annotator.processing.cvaa.conftest import CROPS


def _calibrate(tiny_bytes: bytes, rotterdam: np.ndarray, held_pairs: dict[int, list[Pair]]) -> tuple[bytes, dict]:
    lines: list[str] = []
    data, record = calibrate_checkpoint(
        data=tiny_bytes, images={3: rotterdam, 4: rotterdam[::-1]}, held_pairs=held_pairs,
        held_images=frozenset({3}), split={"held_out_images": [3]}, seed=0, device="cpu", log=lines.append,
    )  # fmt: skip
    assert lines and lines[-1].startswith("calibration on held-out scenes")
    return data, record


def test_real_pairs_alone_are_fitted_on_however_few(tiny_bytes: bytes, rotterdam: np.ndarray) -> None:
    pairs = [Pair.from_box(np.ascontiguousarray(rotterdam[y1:y2, x1:x2]), (x1, y1, x2, y2)) for x1, y1, x2, y2 in CROPS]
    # a training image's pairs (4) are not the held-out scene's and never count
    data, record = _calibrate(tiny_bytes, rotterdam, {3: pairs[:3], 4: pairs})

    assert record["calibration_pairs"] == {"real": 3, "self-supervised": 0} and "reason" not in record
    calibration = record["calibration"]
    assert calibration["pairs"] == 3 and sum(r["pairs"] for r in calibration["reliability"]) == 3
    assert load_checkpoint(data).meta["calibration"] == calibration


def test_with_no_real_pair_crops_stand_in_and_the_record_says_so(tiny_bytes: bytes, rotterdam: np.ndarray) -> None:
    _, record = _calibrate(tiny_bytes, rotterdam, {})

    assert record["calibration_pairs"] == {"real": 0, "self-supervised": SYNTHETIC_PER_IMAGE}
    assert record["calibration"]["pairs"] == SYNTHETIC_PER_IMAGE
    assert "no real pair in the held-out scenes" in record["reason"]
