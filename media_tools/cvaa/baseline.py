"""The classical baseline: local features (SIFT, or ORB where OpenCV lacks SIFT) matched from the frame to
the satellite image, and a RANSAC homography giving the frame's footprint. Same answer type as the model.

Both images are shrunk to at most `max_side` px for matching (features at full resolution of a large
orthophoto would cost seconds and memory for little gain), and the footprint is scaled back.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .footprints import frame_corners, quad_area, quad_bbox, quad_up_angle
from .located import Located
from .views import as_rgb8


@dataclass(frozen=True)
class _Features:
    points: np.ndarray  # (n, 2) in the original image's pixels, corner convention
    descriptors: np.ndarray | None


class SiftLocator:
    """Locates frames on one satellite image; its features are computed once, here.

    A match needs `min_inliers` RANSAC inliers (reprojection error under `ransac_px` at matching scale)
    and a footprint that is convex and not degenerate; otherwise the answer is "nothing found". The
    score is the inlier count; `details` gives it and the inlier ratio (inliers / ratio-test matches).
    """

    def __init__(
        self,
        image: np.ndarray,
        *,
        max_side: int = 1600,
        features: int = 6000,
        ratio: float = 0.8,
        min_inliers: int = 12,
        ransac_px: float = 4.0,
    ) -> None:
        self.max_side, self.ratio, self.min_inliers, self.ransac_px = max_side, ratio, min_inliers, ransac_px
        self.method, self.detector, norm = _detector(features)
        self.matcher = cv2.BFMatcher(norm)
        self.height, self.width = image.shape[:2]
        self.sat = self._features(image)

    def _features(self, image: np.ndarray) -> _Features:
        grey = cv2.cvtColor(as_rgb8(image), cv2.COLOR_RGB2GRAY)
        scale = min(1.0, self.max_side / max(grey.shape))
        if scale < 1:
            grey = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        keypoints, descriptors = self.detector.detectAndCompute(grey, None)
        # Keypoints are in OpenCV's centre convention at matching scale; back to corner-convention pixels.
        points = (np.array([k.pt for k in keypoints], float).reshape(-1, 2) + 0.5) / scale
        return _Features(points, descriptors)

    def locate(self, frame: np.ndarray, top_k: int = 1) -> Located:
        """Footprint of `frame` on the satellite image, or Located.nothing with the reason in details.
        `top_k` is accepted for a common interface; a homography gives one answer."""
        del top_k
        own = self._features(frame)
        matches = self._matches(own)
        if len(matches) < self.min_inliers:
            return Located.nothing(self.method, reason="too few feature matches", matches=len(matches))
        src = own.points[[m.queryIdx for m in matches]]
        dst = self.sat.points[[m.trainIdx for m in matches]]
        tolerance = self.ransac_px * max(self.width, self.height) / min(self.max_side, max(self.width, self.height))
        homography, mask = cv2.findHomography(src, dst, cv2.RANSAC, tolerance, maxIters=5000, confidence=0.999)
        inliers = int(mask.sum()) if mask is not None else 0
        if homography is None or inliers < self.min_inliers:
            return Located.nothing(self.method, reason="no consistent homography", matches=len(matches))
        quad = _footprint(homography, frame.shape[1], frame.shape[0])
        if quad is None:
            return Located.nothing(self.method, reason="the homography folds or flips the frame", inliers=inliers)
        details = {"inliers": inliers, "inlier_ratio": inliers / len(matches), "matches": len(matches)}
        score, angle = np.array([float(inliers)]), np.array([quad_up_angle(quad)])
        return Located(self.method, quad_bbox(quad)[None], score, angle, quad[None], details=details)

    def _matches(self, own: _Features) -> list[cv2.DMatch]:
        if own.descriptors is None or self.sat.descriptors is None or len(self.sat.points) < 2:
            return []
        pairs = self.matcher.knnMatch(own.descriptors, self.sat.descriptors, k=2)
        # Lowe's ratio test: keep a match only when it is clearly better than the runner-up.
        return [p[0] for p in pairs if len(p) == 2 and p[0].distance < self.ratio * p[1].distance]


def _detector(features: int) -> tuple[str, cv2.Feature2D, int]:
    if hasattr(cv2, "SIFT_create"):
        return "sift", cv2.SIFT_create(nfeatures=features), cv2.NORM_L2
    return "orb", cv2.ORB_create(nfeatures=features), cv2.NORM_HAMMING  # type: ignore[attr-defined]


def _footprint(homography: np.ndarray, width: int, height: int) -> np.ndarray | None:
    """The mapped frame corners, or None when the mapping is not a plausible view (corners past the
    horizon, a folded or mirrored quadrilateral, or almost no area)."""
    corners = np.column_stack([frame_corners(width, height), np.ones(4)]) @ homography.T
    if not np.all(corners[:, 2] > 0):
        return None
    quad = corners[:, :2] / corners[:, 2:3]
    edges = np.roll(quad, -1, axis=0) - quad
    turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
    # Frame corners run clockwise on screen (TL, TR, BR, BL with y down), so a true view keeps every turn > 0.
    if not np.all(turns > 0) or quad_area(quad) < 1.0:
        return None
    return quad
