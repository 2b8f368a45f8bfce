"""Local features for geometric placement: RootSIFT keypoints and mutual, ratio-tested matches (the why
of each choice is in geometry.py's module doc)."""

from __future__ import annotations

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


def root_sift(descriptors: np.ndarray) -> np.ndarray:
    """Hellinger kernel: L1-normalise, square-root (the result has unit L2 norm)."""
    d = np.asarray(descriptors, np.float32)
    d = d / np.maximum(d.sum(axis=1, keepdims=True), 1e-7)
    return np.sqrt(d).astype(np.float32)


def flann_index(descriptors: np.ndarray) -> cv2.FlannBasedMatcher:
    """An approximate nearest-neighbour index (randomised k-d trees) over `descriptors`, built once and
    queried per frame: 5-7x faster than brute force at the map's thousands of features."""
    matcher = cv2.FlannBasedMatcher({"algorithm": 1, "trees": 4}, {"checks": 48})
    matcher.add([np.asarray(descriptors, np.float32)])
    matcher.train()
    return matcher


def mutual_matches(
    a: np.ndarray,
    b: np.ndarray,
    *,
    ratio: float = 0.85,
    index: cv2.FlannBasedMatcher | None = None,
    exact: bool = False,
) -> np.ndarray:
    """(m, 2) index pairs (into a, into b) that pass the ratio test (a -> b, two nearest neighbours) and are
    mutual (a's feature is the exact nearest neighbour of its match in b). `index`: a flann_index of b;
    without one, small sets are matched by brute force and larger ones through a fresh index; `exact`
    forces brute force (the approximate search misses a few true neighbours, which matters only where
    matches are scarce)."""
    if len(a) < 2 or len(b) < 2:
        return np.zeros((0, 2), int)
    if exact:
        index = None
    elif index is None and len(a) * len(b) > 2_000_000:
        index = flann_index(b)
    forward = index.knnMatch(a, k=2) if index is not None else cv2.BFMatcher(cv2.NORM_L2).knnMatch(a, b, k=2)
    candidates = np.array(
        [(p[0].queryIdx, p[0].trainIdx) for p in forward if len(p) == 2 and p[0].distance < ratio * p[1].distance],
        int,
    ).reshape(-1, 2)
    if not len(candidates):
        return candidates
    # The reverse check is exact and cheap: only the matched features of b look back at all of a.
    targets = np.unique(candidates[:, 1])
    back = cv2.BFMatcher(cv2.NORM_L2).match(b[targets], a)
    best_back = np.full(len(b), -1)
    for m in back:
        best_back[targets[m.queryIdx]] = m.trainIdx
    return candidates[best_back[candidates[:, 1]] == candidates[:, 0]]
