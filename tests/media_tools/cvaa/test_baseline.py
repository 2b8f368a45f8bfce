"""media_tools.cvaa.baseline: SIFT + RANSAC recovers a known warp of a real satellite crop, or says no match."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from media_tools.cvaa import SiftLocator, box_iou, load_rgb, quad_bbox, quad_up_angle

PAN = "satellite/spacenet6_rotterdam_pan_0p5m.tif"  # 600 x 600, 0.5 m, 16-bit


@pytest.fixture(scope="module")
def pan(testdata: Path) -> np.ndarray:
    return load_rgb(testdata / PAN)


def _oblique_frame(image: np.ndarray, quad: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """What a camera whose footprint is `quad` (TL, TR, BR, BL) sees, as a size[0] x size[1] frame."""
    w, h = size
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    # both sides moved to OpenCV's pixel-centre convention
    to_sat = cv2.getPerspectiveTransform(corners - 0.5, quad.astype(np.float32) - 0.5)
    return cv2.warpPerspective(image, to_sat, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)


def test_sift_recovers_a_known_oblique_warp_of_a_real_satellite_crop(pan: np.ndarray) -> None:
    # given a frame that sees a trapezoid of Rotterdam turned by about 30°, far edge wider (oblique view)
    angle = np.radians(30)
    right, down = np.array([np.cos(angle), np.sin(angle)]), np.array([-np.sin(angle), np.cos(angle)])
    local = np.array([[-150, -110], [150, -110], [110, 90], [-110, 90]], float)
    truth = np.array([300, 300]) + local[:, :1] * right + local[:, 1:] * down
    frame = _oblique_frame(pan, truth, (480, 320))

    # when the baseline locates it
    answer = SiftLocator(pan).locate(frame)

    # then the footprint's corners are within 3 px (1.5 m) and its box overlaps the true box almost fully
    assert answer.found and answer.method == "sift"
    assert np.abs(answer.quads[0] - truth).max() < 3
    assert box_iou(answer.boxes[0], quad_bbox(truth))[0, 0] > 0.95
    assert abs(answer.angles[0] - quad_up_angle(truth)) < 1
    assert answer.scores[0] == answer.details["inliers"] >= 50
    assert 0.3 < answer.details["inlier_ratio"] <= 1


def test_a_frame_of_somewhere_else_gives_no_match(pan: np.ndarray, testdata: Path) -> None:
    # an aerial photo of another town, and plain noise
    elsewhere = load_rgb(testdata / "satellite" / "opencv_aero1_oblique_aerial.jpg")
    noise = np.random.default_rng(0).integers(0, 256, (240, 320, 3), dtype=np.uint8)
    locator = SiftLocator(pan)
    for frame in (elsewhere, noise):
        answer = locator.locate(frame)
        assert not answer.found
        assert answer.boxes.shape == (0, 4) and answer.scores.shape == (0,)
        assert answer.details["reason"] in ("too few feature matches", "no consistent homography")
