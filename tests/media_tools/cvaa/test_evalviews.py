"""media_tools.cvaa.evalviews: evaluation frames made from real ones, their truth carried exactly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from media_tools.cvaa import Pair, load_rgb
from media_tools.cvaa.evalviews import oblique_from_photo, oblique_render, quad_homography, rotated_pair
from media_tools.cvaa.footprints import frame_corners
from media_tools.cvaa.geometry import project
from media_tools.cvaa.rectify import oblique_rectifier, warp_view


@pytest.fixture(scope="module")
def ground(testdata: Path) -> np.ndarray:
    return load_rgb(testdata / "brighton_beach" / "brighton_beach_ortho_utm15n.tif")


def _crop_pair(ground: np.ndarray) -> Pair:
    """A north-up 640 x 360 crop of the map: its truth is the crop's rectangle."""
    x, y = 700, 400
    return Pair(
        ground[y : y + 360, x : x + 640].copy(),
        np.array([[x, y], [x + 640, y], [x + 640, y + 360], [x, y + 360]], float),
    )


@pytest.mark.parametrize("k", [1, 2, 3])
def test_a_turned_frame_keeps_its_pixels_where_its_turned_footprint_says(ground: np.ndarray, k: int) -> None:
    pair = _crop_pair(ground)
    turned = rotated_pair(pair, k)
    h, w = turned.frame.shape[:2]
    # every pixel of the turned frame shows the map pixel its footprint's homography points at
    to_map = quad_homography(turned.quad, (w, h))
    for x, y in [(10, 20), (w - 30, 5), (w // 2, h - 7)]:
        mx, my = project(to_map, np.array([[x + 0.5, y + 0.5]]))[0]
        assert np.array_equal(turned.frame[y, x], ground[int(my), int(mx)])


def test_an_oblique_render_has_its_far_edge_wider_and_its_truth_maps_its_pixels(ground: np.ndarray) -> None:
    made = oblique_render(
        ground, centre_px=(900, 560), metres_per_px=0.086, alt_m=15, heading_deg=30, pitch_deg=-40,
        hfov_deg=60, out_size=(800, 450),
    )  # fmt: skip
    assert made is not None
    q = made.quad
    assert np.linalg.norm(q[1] - q[0]) > 1.5 * np.linalg.norm(q[2] - q[3])  # the top (far) edge is wider
    to_map = quad_homography(q, (800, 450))
    mx, my = project(to_map, np.array([[400.5, 300.5]]))[0]
    assert np.allclose(made.frame[300, 400], ground[round(float(my) - 0.5), round(float(mx) - 0.5)], atol=40)


def test_an_oblique_view_of_a_photo_carries_the_photos_truth(ground: np.ndarray) -> None:
    # given a "photo" that is a crop of the map (so its truth is exact), viewed 50 degrees off nadir
    photo = _crop_pair(ground)
    view = oblique_from_photo(photo, pitch_deg=-40, heading_deg=90, hfov_deg=50, alt_px=150, out_size=(640, 360))
    assert view is not None
    # then the view's truth sends its pixels to the map pixels they show, inside the photo's footprint
    to_map = quad_homography(view.quad, (640, 360))
    for x, y in [(320, 180), (40, 300), (600, 60)]:
        mx, my = project(to_map, np.array([[x + 0.5, y + 0.5]]))[0]
        assert np.allclose(view.frame[y, x], ground[round(float(my) - 0.5), round(float(mx) - 0.5)], atol=40)
    assert np.all((view.quad >= photo.quad.min(axis=0) - 1e-6) & (view.quad <= photo.quad.max(axis=0) + 1e-6))
    assert np.linalg.norm(view.quad[1] - view.quad[0]) > np.linalg.norm(view.quad[2] - view.quad[3])
    # and a view that would leave the photo is not made
    assert (
        oblique_from_photo(photo, pitch_deg=-40, heading_deg=90, hfov_deg=50, alt_px=400, out_size=(640, 360)) is None
    )


def test_the_oblique_rectifier_undoes_the_perspective_of_a_matching_camera(ground: np.ndarray) -> None:
    # given a 50-degree-off-nadir render through a 70-degree lens
    made = oblique_render(
        ground, centre_px=(900, 560), metres_per_px=0.086, alt_m=15, heading_deg=0, pitch_deg=-40,
        hfov_deg=70, out_size=(800, 450),
    )  # fmt: skip
    assert made is not None
    rectifier = oblique_rectifier(800, 450, 50.0, 70.0, side=900)
    assert rectifier is not None
    to_frame, size = rectifier
    # then the rectified view maps to the ground by a similarity: no perspective left, equal scales
    rect_to_map = quad_homography(made.quad, (800, 450)) @ to_frame
    rect_to_map /= rect_to_map[2, 2]
    assert np.allclose(rect_to_map[2, :2], 0, atol=1e-7)
    sv = np.linalg.svd(rect_to_map[:2, :2], compute_uv=False)
    assert sv[0] / sv[1] < 1.01
    assert max(size) == 900
    assert warp_view(made.frame, to_frame, size).shape == (size[1], size[0], 3)
    # and a tilt that would put the frame's top past the horizon is refused
    assert oblique_rectifier(800, 800, 80.0, 90.0, side=900) is None


def test_frame_corners_order_is_what_quads_use() -> None:
    assert frame_corners(4, 2).tolist() == [[0, 0], [4, 0], [4, 2], [0, 2]]
