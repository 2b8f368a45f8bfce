"""media_tools.cvaa.matching: RootSIFT descriptors and mutual, ratio-tested matches (exact and through FLANN)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from media_tools.cvaa import load_rgb
from media_tools.cvaa.matching import (
    exact_is_cheaper,
    flann_index,
    mutual_matches,
    nearest_neighbours,
    root_sift,
    sift_features,
)


@pytest.fixture(scope="module")
def two_views(testdata: Path) -> tuple[np.ndarray, np.ndarray]:
    """RootSIFT descriptors of two overlapping crops of the Brighton map (half their width shared)."""
    ground = load_rgb(testdata / "brighton_beach" / "brighton_beach_ortho_utm15n.tif")
    a = sift_features(ground[300:700, 500:1100], max_features=1500).descriptors
    b = sift_features(ground[300:700, 800:1400], max_features=1500).descriptors
    return a, b


def _distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    squared = (a64**2).sum(axis=1)[:, None] + (b64**2).sum(axis=1)[None, :] - 2 * a64 @ b64.T
    return np.sqrt(np.maximum(squared, 0))


def _reference(a: np.ndarray, b: np.ndarray, ratio: float) -> set[tuple[int, int]]:
    """Mutual nearest neighbours passing the ratio test, from the full distance matrix."""
    d = _distances(a, b)
    order = np.argsort(d, axis=1)
    best, second = order[:, 0], order[:, 1]
    rows = np.arange(len(a))
    passes = d[rows, best] < ratio * d[rows, second]
    mutual = np.argmin(d, axis=0)[best] == rows
    return {(int(i), int(best[i])) for i in rows[passes & mutual]}


def test_root_sift_is_the_square_root_of_the_l1_normalised_histogram() -> None:
    raw = np.array([[4.0, 0.0, 12.0, 0.0], [1.0, 1.0, 1.0, 1.0]], np.float32)
    out = root_sift(raw)
    assert np.allclose(out, [[0.5, 0.0, np.sqrt(0.75), 0.0], [0.5, 0.5, 0.5, 0.5]])
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0)


def test_exact_matches_are_the_mutual_ratio_tested_nearest_neighbours(two_views: tuple[np.ndarray, np.ndarray]) -> None:
    a, b = two_views
    got = {tuple(p) for p in mutual_matches(a, b, ratio=0.85, exact=True).tolist()}
    assert got == _reference(a, b, 0.85)
    assert len(got) > 100  # the crops share half their ground


def test_matches_through_a_flann_index_are_mutual_and_nearly_all_the_exact_ones(
    two_views: tuple[np.ndarray, np.ndarray],
) -> None:
    a, b = two_views
    exact = _reference(a, b, 0.85)

    got = {tuple(p) for p in mutual_matches(a, b, ratio=0.85, index=flann_index(b)).tolist()}

    # every pair is mutual by the exact reverse check: a's feature is the true nearest of its match
    d = _distances(a, b)
    assert all(int(np.argmin(d[:, j])) == i for i, j in got)
    assert len(got & exact) >= 0.8 * len(exact)


def test_small_sets_are_matched_exactly_even_through_an_index(two_views: tuple[np.ndarray, np.ndarray]) -> None:
    # given sets small enough that exact search is the cheaper one (1,000 x 1,500 pairs)
    a, b = two_views
    a = a[:1000]
    assert exact_is_cheaper(len(a), len(b)) and not exact_is_cheaper(len(two_views[0]), len(b))

    # when they are matched through a FLANN index of b
    got = {tuple(p) for p in mutual_matches(a, b, ratio=0.85, index=flann_index(b)).tolist()}

    # then the index is not used: the matches are exactly the exact ones
    assert got == _reference(a, b, 0.85) and len(got) > 50


def test_nearest_neighbours_are_the_exact_two_nearest_by_distance(two_views: tuple[np.ndarray, np.ndarray]) -> None:
    a, b = two_views
    d = _distances(a, b)

    indices, distances = nearest_neighbours(a, b, k=2)

    order = np.argsort(d, axis=1)[:, :2]
    assert (indices == order).mean() > 0.999  # the rest are exact ties
    assert np.allclose(distances, np.take_along_axis(d, order, axis=1), atol=1e-6)
    one, _ = nearest_neighbours(b[:5], a, k=1)
    assert one[:, 0].tolist() == np.argmin(d[:, :5], axis=0).tolist()


def test_too_few_descriptors_match_nothing() -> None:
    one = np.ones((1, 128), np.float32) / np.sqrt(128)
    assert mutual_matches(one, one).shape == (0, 2)


def test_an_index_built_twice_answers_the_same_whatever_was_drawn_in_between() -> None:
    # given descriptors where the approximate search misses some true neighbours (random vectors: no
    # structure for the trees to exploit), and OpenCV's generator moved on between the two builds
    from media_tools.cvaa.matching import flann_index

    rng = np.random.default_rng(0)
    b, a = rng.random((4000, 128), dtype=np.float32), rng.random((500, 128), dtype=np.float32)

    def answers() -> list[tuple[int, int]]:
        return [(m[0].trainIdx, m[1].trainIdx) for m in flann_index(b).knnMatch(a, k=2)]

    first = answers()
    cv2.randu(np.zeros((10, 10), np.float32), 0, 1)  # draws from the generator the trees come from
    # then the same trees, so the same neighbours, found and missed
    assert answers() == first
