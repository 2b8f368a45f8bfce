"""Local features for geometric placement: RootSIFT keypoints and mutual, ratio-tested matches (the why
of each choice is in geometry.py's module doc)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from .views import as_rgb8


@dataclass(frozen=True)
class Features:
    """Keypoints in the original image's pixels (corner convention) and their RootSIFT descriptors."""

    points: np.ndarray  # (n, 2) float
    descriptors: np.ndarray  # (n, 128) float32, unit L2 norm
    sizes: np.ndarray  # (n,) keypoint diameters in original pixels


def sift_features(image: np.ndarray, *, scale: float = 1.0, max_features: int = 4000) -> Features:
    """RootSIFT features of `image` resized by `scale` (points given back in the original's pixels)."""
    grey = cv2.cvtColor(as_rgb8(image), cv2.COLOR_RGB2GRAY)
    if scale != 1.0:
        interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
        grey = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=interpolation)
    # Black (masked, no-data) ground gives no features; its edge would give false ones, so erode it.
    mask = cv2.erode((grey > 0).astype(np.uint8) * 255, np.ones((7, 7), np.uint8))
    sift = cv2.SIFT_create(nfeatures=max_features)  # type: ignore[attr-defined]
    keypoints, descriptors = sift.detectAndCompute(grey, mask)
    if descriptors is None or not keypoints:
        return Features(np.zeros((0, 2)), np.zeros((0, 128), np.float32), np.zeros(0))
    points = (np.array([k.pt for k in keypoints], float) + 0.5) / scale
    sizes = np.array([k.size for k in keypoints], float) / scale
    return Features(points, root_sift(descriptors), sizes)


# A frame (a keyframe, a video frame) is described at this longest side, with at most this many features, by
# map matching (GeometricLocator) and by chaining (tracking) alike, so one description serves both.
FRAME_SIDE = 960
FRAME_FEATURES = 3000


@dataclass(frozen=True)
class FrameFeatures:
    """A frame's features (points in the frame's own pixels) with the frame's size and the settings they were
    described at."""

    features: Features
    size: tuple[int, int]  # (width, height) of the frame
    side: int  # the longest side it was described at (never enlarged)
    max_features: int

    def described_as(self, side: int, max_features: int) -> bool:
        return self.side == side and self.max_features == max_features


def describe_frame(frame: np.ndarray, *, side: int = FRAME_SIDE, max_features: int = FRAME_FEATURES) -> FrameFeatures:
    """RootSIFT features of a frame shrunk to `side` px on its longer side (never enlarged)."""
    image = as_rgb8(frame)
    height, width = image.shape[:2]
    shrink = min(1.0, side / max(width, height))
    features = sift_features(image, scale=shrink, max_features=max_features)
    return FrameFeatures(features, (width, height), side, max_features)


class FrameFeatureCache:
    """Each frame of `frames` described once (describe_frame), when first asked for, and kept: the placements
    job's map matching and chaining of the same keyframes share one description per keyframe. Keeps features
    only (about 1.5 MB a frame at 3,000 features), not pixels: `frames` may decode on demand."""

    def __init__(self, frames: Sequence[np.ndarray], *, side: int = FRAME_SIDE, max_features: int = FRAME_FEATURES):
        self.frames, self.side, self.max_features = frames, side, max_features
        self._kept: dict[int, FrameFeatures] = {}

    def __getitem__(self, index: int) -> FrameFeatures:
        if index not in self._kept:
            self._kept[index] = describe_frame(self.frames[index], side=self.side, max_features=self.max_features)
        return self._kept[index]

    def forget(self, index: int) -> None:
        """Drop frame `index`'s features (described again if asked for later)."""
        self._kept.pop(index, None)

    def __contains__(self, index: object) -> bool:
        return index in self._kept

    def __len__(self) -> int:
        return len(self.frames)


def root_sift(descriptors: np.ndarray) -> np.ndarray:
    """Hellinger kernel: L1-normalise, square-root (the result has unit L2 norm)."""
    d = np.asarray(descriptors, np.float32)
    d = d / np.maximum(d.sum(axis=1, keepdims=True), 1e-7)
    return np.sqrt(d).astype(np.float32)


FLANN_SEED = 0


def flann_index(descriptors: np.ndarray) -> cv2.FlannBasedMatcher:
    """An approximate nearest-neighbour index (randomised k-d trees) over `descriptors`, built once and
    queried per frame: 5-7x faster than brute force at the map's thousands of features. The trees are
    drawn from OpenCV's random generator, seeded here: unseeded, which true neighbours the search misses
    changed from run to run and with any unrelated index built before it, so one frame could be placed
    on one run and refused (or, at the map's edge, misplaced) on the next. Seeded, a placement is a
    function of the frame and the map."""
    matcher = cv2.FlannBasedMatcher({"algorithm": 1, "trees": 4}, {"checks": 48})
    matcher.add([np.asarray(descriptors, np.float32)])
    cv2.setRNGSeed(FLANN_SEED)
    matcher.train()
    return matcher


# Exact search of a features among b costs one BLAS product, an approximate one a FLANN query: below this many
# pairs the product is the cheaper (3,000 frame features against the map's 587 at scale 1/4: 0.03 s exact,
# 0.05 s through a prebuilt index; against 2,101 at 1/2: 0.08 s and 0.07 s, CPU, bench/README.md).
EXACT_PAIRS = 2_000_000


def exact_is_cheaper(n_a: int, n_b: int) -> bool:
    """Whether exact search of n_a features among n_b costs no more than an approximate one (EXACT_PAIRS)."""
    return n_a * n_b <= EXACT_PAIRS


def mutual_matches(
    a: np.ndarray,
    b: np.ndarray,
    *,
    ratio: float = 0.85,
    index: cv2.FlannBasedMatcher | None = None,
    exact: bool = False,
) -> np.ndarray:
    """(m, 2) index pairs (into a, into b) that pass the ratio test (a -> b, two nearest neighbours) and are
    mutual (a's feature is the exact nearest neighbour of its match in b). Small sets (exact_is_cheaper) are
    always matched exactly; larger ones through `index` (a flann_index of b) or a fresh index; `exact` forces
    exact search (the approximate search misses a few true neighbours, which matters only where matches are
    scarce)."""
    if len(a) < 2 or len(b) < 2:
        return np.zeros((0, 2), int)
    if exact or exact_is_cheaper(len(a), len(b)):
        index = None
    elif index is None:
        index = flann_index(b)
    if index is not None:
        forward = index.knnMatch(a, k=2)
        candidates = np.array(
            [(p[0].queryIdx, p[0].trainIdx) for p in forward if len(p) == 2 and p[0].distance < ratio * p[1].distance],
            int,
        ).reshape(-1, 2)
    else:
        nearest, distance = nearest_neighbours(a, b, k=2)
        rows = np.flatnonzero(distance[:, 0] < ratio * distance[:, 1])
        candidates = np.column_stack([rows, nearest[rows, 0]]).astype(int).reshape(-1, 2)
    if not len(candidates):
        return candidates
    # The reverse check is exact and cheap: only the matched features of b look back at all of a.
    targets = np.unique(candidates[:, 1])
    best_back = np.full(len(b), -1)
    best_back[targets] = nearest_neighbours(b[targets], a, k=1)[0][:, 0]
    return candidates[best_back[candidates[:, 1]] == candidates[:, 0]]


_BLOCK = 1024  # rows of `a` per matrix product: a block's scores stay a few tens of MB at the map's size


def nearest_neighbours(a: np.ndarray, b: np.ndarray, *, k: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Exact k nearest neighbours (k = 1 or 2) in b of each row of a, by Euclidean distance: (indices,
    distances), each (len(a), k), nearest first. Candidates are ranked by one float32 matrix product per
    block (|b|^2 - 2 a.b: BLAS instead of OpenCV's brute-force loop, 3-4x faster on the map's thousands of
    features), and the best k + 1 are measured again in float64, so near-ties rank as the true distances
    do."""
    a32, b32 = np.asarray(a, np.float32), np.asarray(b, np.float32)
    # [a, 1] . [-2 b, |b|^2] = |b|^2 - 2 a.b: the product gives the scores with no further pass over them.
    b_aug = np.empty((len(b32), b32.shape[1] + 1), np.float32)
    np.multiply(b32, -2, out=b_aug[:, :-1])
    b_aug[:, -1] = np.einsum("ij,ij->i", b32, b32)
    a_aug = np.ones((len(a32), b_aug.shape[1]), np.float32)
    a_aug[:, :-1] = a32
    m = min(k + 1, len(b32))
    indices = np.empty((len(a32), k), int)
    distances = np.empty((len(a32), k))
    for start in range(0, len(a32), _BLOCK):
        block = a32[start : start + _BLOCK]
        scores = a_aug[start : start + _BLOCK] @ b_aug.T
        rows = np.arange(len(block))
        candidates = np.empty((len(block), m), int)
        for j in range(m):  # m argmin passes: cheaper than a partial sort of every row
            candidates[:, j] = scores.argmin(axis=1)
            scores[rows, candidates[:, j]] = np.inf
        diff = block[:, None, :].astype(np.float64) - b32[candidates].astype(np.float64)
        measured = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
        order = np.argsort(measured, axis=1, kind="stable")[:, :k]
        indices[start : start + len(block)] = np.take_along_axis(candidates, order, axis=1)
        distances[start : start + len(block)] = np.take_along_axis(measured, order, axis=1)
    return indices, distances
