"""Geometric re-ranking of the retriever's windows (media_tools/cvaa/rerank.py) with the real geometric
locator on Rotterdam: the window geometry verifies moves first with the verified footprint."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from media_tools.cvaa import Located, box_iou, load_rgb
from media_tools.cvaa.evaluate import located_from_placement
from media_tools.cvaa.geometry import GeometricLocator
from media_tools.cvaa.rerank import rerank

TRUE = (150, 40, 270, 140)
# The retriever's answer, best first: two wrong places, the true one third, one far corner last.
WINDOWS = [(20, 30, 140, 130), (60, 160, 180, 260), TRUE, (200, 200, 290, 290)]


def _quad(b: tuple[int, ...]) -> np.ndarray:
    return np.array([[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]], float)


@pytest.fixture(scope="module")
def answer() -> Located:
    boxes = np.array(WINDOWS, float)
    return Located("cvaa", boxes, np.array([0.9, 0.8, 0.7, 0.6]), np.zeros(4), np.array([_quad(w) for w in WINDOWS]))


def test_the_window_geometry_verifies_comes_first_with_its_footprint(rotterdam: np.ndarray, answer: Located) -> None:
    # given a drone-like view of the true place (upsampled 4x, as a frame has more pixels than the map)
    x1, y1, x2, y2 = TRUE
    frame = cv2.resize(rotterdam[y1:y2, x1:x2], (480, 400), interpolation=cv2.INTER_CUBIC)
    locator = GeometricLocator(rotterdam)

    ranked = rerank(frame, answer, locator)

    # then the first answer is the verified footprint, near the truth, with the placement's confidence
    assert box_iou(ranked.boxes[0], np.array([TRUE], float))[0, 0] > 0.9
    assert ranked.details["verified"][0] and ranked.details["retriever_rank"][0] in (2, 3)
    assert 0.5 < ranked.scores[0] <= 1.0
    # and every window is still answered once, the unverified ones in the retriever's order, scored 0
    assert sorted(ranked.details["retriever_rank"]) == [1, 2, 3, 4] and len(ranked.boxes) == 4
    unverified = [r for r, v in zip(ranked.details["retriever_rank"], ranked.details["verified"], strict=True) if not v]
    assert unverified == sorted(unverified) and 1 in unverified
    assert all(s == 0.0 for s, v in zip(ranked.scores, ranked.details["verified"], strict=True) if not v)


def test_a_frame_from_elsewhere_verifies_nothing_and_keeps_the_order(
    testdata: Path, rotterdam: np.ndarray, answer: Located
) -> None:
    frame = load_rgb(testdata / "brighton_beach/frames/DJI_0025.jpg")
    ranked = rerank(frame, answer, GeometricLocator(rotterdam))
    assert ranked.details["verified"] == [False] * 4 and ranked.details["retriever_rank"] == [1, 2, 3, 4]
    np.testing.assert_array_equal(ranked.boxes, answer.boxes)
    assert located_from_placement(None, "geometry").found is False


def test_the_coarse_search_places_a_frame_near_the_window_that_holds_it_and_says_which(
    rotterdam: np.ndarray, answer: Located
) -> None:
    from media_tools.cvaa.rerank import placement_near_windows

    x1, y1, x2, y2 = TRUE
    frame = cv2.resize(rotterdam[y1:y2, x1:x2], (480, 400), interpolation=cv2.INTER_CUBIC)
    locator = GeometricLocator(rotterdam)
    # the true window third among four: placed there, the window's rank kept
    found = placement_near_windows(frame, answer.quads, locator)
    assert found is not None and found.source == "matching"
    assert box_iou(found.box, np.array([TRUE], float))[0, 0] > 0.9
    # (the second window's neighbourhood, twice its side, reaches the truth)
    assert found.details["retriever_rank"] in (2, 3)
    # only the first window searched (the true one beyond k): nothing, rather than a wrong place
    assert placement_near_windows(frame, answer.quads[:1], locator) is None
    assert placement_near_windows(frame, answer.quads, locator, k=1) is None
