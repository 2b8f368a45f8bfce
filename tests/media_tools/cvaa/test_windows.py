"""media_tools.cvaa.windows: sliding windows cover the image at the stated overlap; heatmap cover."""

from __future__ import annotations

import numpy as np
import pytest

from media_tools.cvaa import WindowSpec, box_iou, make_windows, window_boxes
from media_tools.cvaa.windows import heatmap_cover, view_affine, view_quad, window_sides

CASES = [(300, 300, 75, 0.5), (1865, 1085, 163, 0.5), (640, 480, 200, 0.25), (100, 60, 60, 0.5)]


@pytest.mark.parametrize(("width", "height", "side", "overlap"), CASES)
def test_windows_cover_every_pixel_with_the_stated_overlap(width: int, height: int, side: int, overlap: float) -> None:
    # given an image size, a window side and an overlap
    # when the windows are cut
    boxes = window_boxes(width, height, side, overlap)

    # then every pixel lies in some window, and all windows are inside the image and full size
    covered = np.zeros((height, width), bool)
    for x1, y1, x2, y2 in boxes.round().astype(int):
        covered[y1:y2, x1:x2] = True
    assert covered.all()
    assert boxes[:, :2].min() >= 0 and boxes[:, 2].max() <= width and boxes[:, 3].max() <= height
    assert np.allclose(boxes[:, 2] - boxes[:, 0], min(side, width))
    # and neighbours along x and along y share at least `overlap` of the side
    for axis in (0, 1):
        starts = np.unique(boxes[:, axis])
        if len(starts) > 1:
            assert np.diff(starts).max() <= side * (1 - overlap) + 1e-9
            assert np.diff(starts).min() > 0


def test_the_last_window_is_flush_with_the_far_edges() -> None:
    boxes = window_boxes(1000, 500, 300, 0.5)
    assert boxes[:, 2].max() == 1000 and boxes[:, 3].max() == 500
    assert boxes[0].tolist() == [0, 0, 300, 300]


def test_every_box_comes_once_per_rotation_and_scales_follow_the_shorter_side() -> None:
    spec = WindowSpec(sizes=(0.2, 0.5), overlap=0.5, rotations=(0, 90, 180, 270))
    windows = make_windows(800, 400, spec)
    assert window_sides(800, 400, spec) == [80.0, 200.0]
    assert len(windows) == 4 * len(windows.unique_boxes)
    assert windows.angles[:4].tolist() == [0, 90, 180, 270]
    assert (windows.boxes[:4] == windows.boxes[0]).all()
    per_scale = len(window_boxes(800, 400, 80, 0.5)) + len(window_boxes(800, 400, 200, 0.5))
    assert len(windows.unique_boxes) == per_scale


def test_a_window_smaller_than_the_minimum_is_dropped_but_one_window_always_remains() -> None:
    assert window_sides(60, 40, WindowSpec(sizes=(0.1, 0.5), min_side_px=16)) == [20.0]
    assert window_sides(20, 20, WindowSpec(sizes=(0.1,), min_side_px=16)) == [20.0]


def test_spec_key_changes_with_the_layout() -> None:
    assert WindowSpec().key() == WindowSpec().key()
    assert WindowSpec(overlap=0.25).key() != WindowSpec().key()
    assert WindowSpec(rotations=(0, 180)).key() != WindowSpec().key()


def test_box_iou_known_values() -> None:
    a = np.array([[0, 0, 10, 10]])
    b = np.array([[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30]])
    assert np.allclose(box_iou(a, b), [[1.0, 50 / 150, 0.0]])


def test_view_quad_and_affine_turn_clockwise_and_agree() -> None:
    # a window turned 90° clockwise has its top edge along the image's right side
    quad = view_quad(50, 50, 20, 90)
    assert np.allclose(quad, [[60, 40], [60, 60], [40, 60], [40, 40]])
    # the affine maps the view's corner pixels (OpenCV centres) onto that quad, half a pixel inside
    m = view_affine(50, 50, 20, 90, out=20)
    tl_centre = m @ np.array([0, 0, 1.0]) + 0.5  # back to corner convention
    assert np.allclose(tl_centre, [59.5, 40.5])


def test_heatmap_cell_holds_the_best_score_of_the_boxes_covering_it() -> None:
    # given random boxes and scores on a 300 x 200 image
    rng = np.random.default_rng(0)
    x1, y1 = rng.uniform(0, 200, 40), rng.uniform(0, 100, 40)
    boxes = np.column_stack([x1, y1, x1 + 100, y1 + 100])
    scores = rng.uniform(-1, 1, 40).astype(np.float32)

    # when the heatmap is painted
    cover = heatmap_cover(300, 200, boxes, max_cells=30)
    heat = cover.paint(scores, empty=-9)

    # then each cell equals the brute-force max over boxes containing its centre
    assert heat.shape == (20, 30) and cover.cell_px == 10
    for r in range(20):
        for c in range(30):
            cx, cy = (c + 0.5) * 10, (r + 0.5) * 10
            inside = (boxes[:, 0] <= cx) & (cx <= boxes[:, 2]) & (boxes[:, 1] <= cy) & (cy <= boxes[:, 3])
            assert heat[r, c] == (scores[inside].max() if inside.any() else -9)
