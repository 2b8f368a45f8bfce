"""The assisted-trajectory measurement (bench/assist.py, manage.py eval_assist): errors in metres and
the tracks that fail, on a generated clip whose truth is known."""

from __future__ import annotations

import numpy as np

from media_tools.assist import PlacedKeyframe
from media_tools.assist.evaluate import evaluate_paths
from media_tools.assist.truth import TruthPath
from media_tools.cvaa import Placement
from tests.media_tools.assist.test_tracker import _square_clip

CORNERS = np.array([[-12, -12], [12, -12], [12, 12], [-12, 12]], float)


def _identity(size: tuple[int, int]) -> Placement:
    w, h = size
    return Placement("control_points", np.array([[0, 0], [w, 0], [w, h], [0, h]], float), size, 1.0, 0.0, np.eye(3))


def test_a_track_with_a_frame_over_two_metres_off_its_truth_counts_as_failed() -> None:
    # given a square tracked through 12 frames, projected 1:1 at 0.1 m/px, and two truth paths: its own
    # centres, and the same with one frame's label 30 px (3 m) away
    frames, centres = _square_clip(12)
    right = TruthPath({i: c + CORNERS for i, c in enumerate(centres)})
    wrong = TruthPath({i: c + CORNERS + ([30, 0] if i == 6 else [0, 0]) for i, c in enumerate(centres)})
    size = (frames[0].gray.shape[1], frames[0].gray.shape[0])
    report = evaluate_paths(
        frames,
        [right, wrong],
        truth_homographies={i: np.eye(3) for i in range(12)},
        keyframes=[PlacedKeyframe(f.time_s, _identity(size)) for f in frames],
        metres_per_px=0.1,
    )
    # then both are tracked in full, the first within 0.1 m everywhere; only the second fails
    summary = report.summary()
    assert summary["paths"] == 2 and summary["share_tracked"] == 1.0
    assert max(report.errors_m[:12]) < 0.1
    assert max(report.errors_m[12:]) > 2.9
    assert summary["paths_failed"] == 1
