"""Placements known as a quad: the homography its corners imply, refused for a folded or flat quad, and
a confidence from the corner error against the footprint's size."""

from __future__ import annotations

import numpy as np
import pytest

from media_tools.cvaa.placement import Placement
from media_tools.cvaa.quads import confidence_from_error, homography_to_quad, placement_from_quad, quad_radius

QUAD = np.array([[100, 50], [300, 80], [280, 240], [90, 200]], float)


def test_the_homography_maps_the_frame_corners_onto_the_quad() -> None:
    h = homography_to_quad(640, 480, QUAD)
    assert h is not None and h[2, 2] == 1.0
    p = Placement("telemetry", QUAD, (640, 480), 0.9, 2.0, homography=h)
    assert p.project(np.array([[0, 0], [640, 0], [640, 480], [0, 480]])) == pytest.approx(QUAD, abs=1e-6)


@pytest.mark.parametrize(
    "quad",
    [
        [[0, 0], [10, 10], [10, 0], [0, 10]],  # a bow tie
        [[0, 0], [10, 0], [20, 0], [30, 0]],  # a line
        [[0, 0], [10, 0], [10, 10], [np.nan, 10]],
    ],
)
def test_a_quad_that_is_no_view_of_the_ground_has_no_homography(quad: list) -> None:
    assert homography_to_quad(4, 3, np.asarray(quad, float)) is None
    assert (
        placement_from_quad(source="telemetry", quad=np.asarray(quad, float), frame_size=(4, 3), uncertainty_px=1)
        is None
    )


def test_confidence_is_one_less_the_error_over_the_radius() -> None:
    square = np.array([[0, 0], [20, 0], [20, 20], [0, 20]], float)
    radius = quad_radius(square)
    assert radius == pytest.approx(10 * np.sqrt(2))
    assert confidence_from_error(square, 0) == 1.0
    assert confidence_from_error(square, radius / 2) == pytest.approx(0.5)
    assert confidence_from_error(square, 3 * radius) == 0.0


def test_a_window_keeps_its_quad_and_no_homography() -> None:
    p = placement_from_quad(
        source="learned", quad=QUAD, frame_size=(640, 480), uncertainty_px=50, confidence=0.4, with_homography=False
    )
    assert p is not None and p.homography is None and p.confidence == 0.4
    with pytest.raises(ValueError):
        p.project(np.zeros((1, 2)))
