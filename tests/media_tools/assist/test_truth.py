"""Truth for the measurement: label files read, boxes linked into paths, a static drone's per-frame
homography from the marker shift, and where an annotator would start tracking."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from media_tools.assist import Box
from media_tools.assist.control import shifted_homographies
from media_tools.assist.evaluate import drawn_box, start_frame
from media_tools.assist.truth import TruthPath, link, read_obb


def _box(cx: float, cy: float, w: float = 20, h: float = 10) -> np.ndarray:
    return np.array(
        [[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2], [cx + w / 2, cy + h / 2], [cx - w / 2, cy + h / 2]]
    )


def test_label_files_are_read_in_pixels(tmp_path: Path) -> None:
    f = tmp_path / "frame_000000.txt"
    f.write_text("3 0.1 0.2 0.3 0.2 0.3 0.4 0.1 0.4\n\n")
    [box] = read_obb(f, width=100, height=50)
    assert box.tolist() == [[10, 10], [30, 10], [30, 20], [10, 20]]
    (tmp_path / "empty.txt").write_text("")
    assert read_obb(tmp_path / "empty.txt", width=1, height=1).shape == (0, 4, 2)


def test_two_crossing_cars_are_linked_by_their_motion() -> None:
    # car a drives right, car b drives down; they pass near each other at frame 2
    frames = [np.array([_box(10 * i, 50), _box(20, 30 + 10 * i)]) for i in range(5)]
    frames[3] = frames[3][::-1]  # the file's order says nothing about who is who
    paths = sorted(link(frames, gate_px=12), key=lambda p: p.centre(0)[0])
    assert [p.frames for p in paths] == [[0, 1, 2, 3, 4]] * 2
    assert [p.centre(4).tolist() for p in paths] == [[40, 50], [20, 70]]


def test_a_box_beyond_the_gate_starts_a_new_path() -> None:
    paths = link([np.array([_box(0, 0)]), np.array([_box(100, 0)])], gate_px=20)
    assert sorted(len(p.boxes) for p in paths) == [1, 1]


def test_tracking_starts_where_the_target_is_fully_in_view() -> None:
    path = TruthPath({0: _box(5, 5, 4, 10), 1: _box(10, 5, 12, 10), 2: _box(20, 5, 20, 10), 3: _box(30, 5, 20, 10)})
    assert start_frame(path) == 2
    assert drawn_box(path.boxes[2]) == Box(20, 5, 16, 8)


def test_a_frame_shifted_by_its_markers_moves_the_reference_fit() -> None:
    ref = np.array([[2.0, 0, 5], [0, 2.0, 7], [0, 0, 1]])
    points = {"a": (10.0, 10.0), "b": (50.0, 20.0)}
    per_frame = {0: dict(points), 1: {"a": (13.0, 8.0)}, 2: {"c": (0.0, 0.0)}}
    out = shifted_homographies(ref, points, per_frame)
    assert sorted(out) == [0, 1]  # frame 2 found no known point
    assert np.allclose(out[0], ref)
    # a point seen 3 px right and 2 px up in frame 1 lands where the reference saw it
    moved = out[1] @ [13.0, 8.0, 1.0]
    assert moved[:2] == pytest.approx((ref @ [10.0, 10.0, 1.0])[:2])
