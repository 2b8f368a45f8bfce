"""Placing a frame on a satellite image by geometry: local features matched with robust verification.

The pipeline, and why each step is there:
- RootSIFT (SIFT descriptors, L1-normalised, square-rooted): Hellinger distance between gradient
  histograms, which matches better than plain SIFT's Euclidean distance for the same cost.
- The satellite image is described once, at several scales (`scales`), so a frame whose ground
  resolution differs from the map's by 2-8x still meets features of its own size; each scale is matched
  and verified on its own (pooling them would let a feature's copy at the next scale fail the ratio test).
- Mutual nearest neighbours plus Lowe's ratio test: a match survives only when each side is the other's
  best and clearly better than the runner-up, which removes the many-to-one matches that fold a
  homography on repetitive ground. The forward search uses a FLANN index of the map built once; the
  reverse check is exact.
- MAGSAC++ (cv2.USAC_MAGSAC) for the homography: it marginalises over the inlier threshold instead of
  trusting one, and is the most reliable of OpenCV's robust estimators.
- The answer is refused (None) unless it is a plausible view of the ground: every frame corner in
  front of the camera with bounded perspective, a convex, non-mirrored, non-self-intersecting quad,
  bounded anisotropy (shear/stretch) and size, and inliers spread over the frame (not collapsed onto a
  point or a line, where a homography is unconstrained).

What `confidence` means. It is a logistic function of the verified inlier count and the inlier ratio,
set on the held-out real sets (bench/README.md, "CVAA geometry"): there, with the minimum lowered to 6
inliers to see the tail, every answer that passed verification hit (IoU >= 0.5 with the true
footprint's box; 49 of 49, the weakest with 10 inliers), and none of 19 frames of other places (other
scenes' frames, aerial photos, a satellite tile) passed. With so few weak answers to learn from, the
curve is set cautiously: 10 inliers (the minimum) read 0.5, 25 read 0.9, 60 read 0.99. The eval
command prints the hit rate per confidence bin on every set (its reliability rows), so the claim is
checked each run; a frame from another place is refused (None).

`uncertainty_px`: the RMS corner error in satellite pixels propagated from the inliers' reprojection
residual through the homography's Jacobian (so it grows when inliers are few, noisy or bunched far
from the corners).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from .footprints import frame_corners, quad_area
from .matching import (
    FRAME_FEATURES,
    FRAME_SIDE,
    Features,
    FrameFeatures,
    describe_frame,
    exact_is_cheaper,
    flann_index,
    mutual_matches,
    sift_features,
)
from .placement import MATCHING, Placement
from .rectify import oblique_rectifier, warp_view
from .views import as_rgb8

# Verification limits, shared with frame-to-frame tracking (tracking.py).
MIN_INLIERS = 10  # map matching; frame-to-frame steps ask for more (tracking.py), since errors compound
MAX_ANISOTROPY = 6.0  # ratio of the local Jacobian's singular values (stretch or shear of the view)
MAX_PERSPECTIVE = 4.0  # largest / smallest homogeneous w over the frame's corners
MIN_SPREAD = 0.015  # inliers' smaller principal standard deviation, as a share of the frame's diagonal
MIN_HULL = 0.02  # inliers' convex hull as a share of the frame's area

# Confidence: logistic in log(inliers) and the inlier ratio (module doc says what it means): 10 inliers
# at ratio 0.2 read 0.5, 15 at 0.25 read 0.72, 25 at 0.4 read 0.9, 60 at 0.6 read 0.99.
_CONF_BIAS = -5.22
_CONF_LOG_INLIERS = 2.18
_CONF_RATIO = 1.0


@dataclass(frozen=True)
class Verified:
    """A homography that passed verification, with the numbers that describe how well."""

    homography: np.ndarray  # (3, 3) source px -> destination px
    quad: np.ndarray  # (4, 2) the source frame's corners mapped
    inliers: int
    matches: int
    reproj_px: float  # RMS residual of the inliers, in destination pixels
    uncertainty_px: float  # RMS corner error, destination pixels
    src: np.ndarray  # (k, 2) inlier points in the source
    dst: np.ndarray  # (k, 2) inlier points in the destination

    @property
    def inlier_ratio(self) -> float:
        return self.inliers / max(self.matches, 1)

    def numbers(self) -> dict[str, Any]:
        return {
            "inliers": self.inliers,
            "matches": self.matches,
            "inlier_ratio": round(self.inlier_ratio, 4),
            "reproj_px": round(self.reproj_px, 3),
        }


def verify(
    src: np.ndarray,
    dst: np.ndarray,
    frame_size: tuple[int, int],
    *,
    threshold_px: float,
    min_inliers: int = MIN_INLIERS,
    max_anisotropy: float = MAX_ANISOTROPY,
) -> tuple[Verified | None, str]:
    """Fit a homography src -> dst with MAGSAC++ and keep it only when it is a plausible view of the ground
    (module doc). Returns (result, "") or (None, the reason it was refused)."""
    if len(src) < min_inliers:
        return None, f"too few matches ({len(src)})"
    homography, mask = cv2.findHomography(
        src.astype(np.float32),
        dst.astype(np.float32),
        cv2.USAC_MAGSAC,
        threshold_px,
        maxIters=4000,
        confidence=0.9999,
    )
    if homography is None or mask is None:
        return None, "no consistent homography"
    inlier = mask.ravel().astype(bool)
    if int(inlier.sum()) < min_inliers:
        return None, f"too few inliers ({int(inlier.sum())})"
    reason = degenerate_reason(homography, frame_size, src[inlier], max_anisotropy=max_anisotropy)
    if reason:
        return None, reason
    s, d = src[inlier], dst[inlier]
    residual = project(homography, s) - d
    rms = float(np.sqrt(np.mean(np.sum(residual**2, axis=1)) / 2))  # per coordinate
    quad = project(homography, frame_corners(*frame_size))
    corner_sd = corner_uncertainty(homography, s, max(rms, 0.3), frame_size)
    return Verified(homography, quad, int(inlier.sum()), len(src), rms, corner_sd, s, d), ""


def project(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    p = np.column_stack([np.asarray(points, float), np.ones(len(points))]) @ np.asarray(homography, float).T
    return p[:, :2] / p[:, 2:3]


def degenerate_reason(
    homography: np.ndarray, frame_size: tuple[int, int], inliers: np.ndarray, *, max_anisotropy: float = MAX_ANISOTROPY
) -> str:
    """Why `homography` (frame px -> map px) is not a plausible view of the ground, or "" when it is."""
    h = np.asarray(homography, float)
    if not np.all(np.isfinite(h)) or abs(np.linalg.det(h)) < 1e-12:
        return "singular homography"
    width, height = frame_size
    corners = np.column_stack([frame_corners(width, height), np.ones(4)]) @ h.T
    w = corners[:, 2]
    if not (np.all(w > 0) or np.all(w < 0)):
        return "part of the frame is beyond the horizon"
    if np.max(np.abs(w)) / np.min(np.abs(w)) > MAX_PERSPECTIVE:
        return "extreme perspective (corners near the horizon)"
    quad = corners[:, :2] / w[:, None]
    if not is_convex_view(quad):
        return "the footprint folds, flips or self-intersects"
    # Local stretch/shear at the frame's centre: the 2x2 Jacobian's singular values.
    sv = np.linalg.svd(_jacobian(h, width / 2, height / 2), compute_uv=False)
    if sv[1] <= 0 or sv[0] / sv[1] > max_anisotropy:
        return f"extreme stretch or shear (anisotropy {sv[0] / max(sv[1], 1e-12):.1f})"
    if math.sqrt(quad_area(quad)) < 8:
        return "the footprint is a few pixels wide"
    # Inliers bunched on a point or a line leave the homography unconstrained away from them.
    pts = np.asarray(inliers, float)
    diagonal = math.hypot(width, height)
    sd = np.sqrt(np.maximum(np.linalg.eigvalsh(np.cov(pts.T)), 0)) if len(pts) > 2 else np.zeros(2)
    if sd[0] < MIN_SPREAD * diagonal:
        return "inliers collapse onto a line or a point"
    hull = cv2.contourArea(cv2.convexHull(pts.astype(np.float32)))
    if hull < MIN_HULL * width * height:
        return "inliers cover too little of the frame"
    return ""


def is_convex_view(quad: np.ndarray) -> bool:
    """True when the quad TL, TR, BR, BL keeps the frame's clockwise (y down) winding with every turn the
    same way: convex, not mirrored, not self-intersecting."""
    q = np.asarray(quad, float)
    edges = np.roll(q, -1, axis=0) - q
    nxt = np.roll(edges, -1, axis=0)
    turns = edges[:, 0] * nxt[:, 1] - edges[:, 1] * nxt[:, 0]
    return bool(np.all(turns > 0))


def _jacobian(h: np.ndarray, x: float, y: float) -> np.ndarray:
    u, v, w = h @ np.array([x, y, 1.0])
    return np.array(
        [
            [(h[0, 0] * w - u * h[2, 0]) / w**2, (h[0, 1] * w - u * h[2, 1]) / w**2],
            [(h[1, 0] * w - v * h[2, 0]) / w**2, (h[1, 1] * w - v * h[2, 1]) / w**2],
        ]
    )


def corner_uncertainty(homography: np.ndarray, src: np.ndarray, sigma_px: float, frame_size: tuple[int, int]) -> float:
    """RMS error of the mapped frame corners (destination px) when the inliers' destination positions
    carry independent noise of `sigma_px` per coordinate: first-order propagation through the 8
    homography parameters, covariance sigma^2 (J^T J)^-1."""
    h = np.asarray(homography, float) / homography[2, 2]
    params = h.ravel()[:8]

    def mapped(p: np.ndarray, pts: np.ndarray) -> np.ndarray:
        return project(np.append(p, 1.0).reshape(3, 3), pts).ravel()

    corners = frame_corners(*frame_size)
    eps = 1e-6 * np.maximum(np.abs(params), 1e-3)
    j_in = np.empty((2 * len(src), 8))
    j_c = np.empty((8, 8))
    for i in range(8):
        up, down = params.copy(), params.copy()
        up[i] += eps[i]
        down[i] -= eps[i]
        j_in[:, i] = (mapped(up, src) - mapped(down, src)) / (2 * eps[i])
        j_c[:, i] = (mapped(up, corners) - mapped(down, corners)) / (2 * eps[i])
    try:
        cov = sigma_px**2 * np.linalg.inv(j_in.T @ j_in)
    except np.linalg.LinAlgError:
        return math.inf
    corner_var = np.diag(j_c @ cov @ j_c.T).reshape(4, 2).sum(axis=1)
    return float(np.sqrt(np.mean(np.maximum(corner_var, 0))))


def matching_confidence(inliers: int, inlier_ratio: float) -> float:
    """The confidence of a verified map match (module doc: what it means)."""
    z = _CONF_BIAS + _CONF_LOG_INLIERS * math.log(max(inliers, 1)) + _CONF_RATIO * inlier_ratio
    return float(1 / (1 + math.exp(-z)))


class GeometricLocator:
    """Places frames on one satellite image; the image's features are computed once, here, at each of
    `scales` (1 = full resolution), at most `max_features` per scale.

    Matching searches a FLANN index of each scale (exactly where the scale has so few features that this is
    cheaper); when no scale verifies, the scales searched approximately are searched again exactly, finest
    first, up to the first that verifies, before anything else (the approximate search misses a few true
    neighbours, which matters only where matches are scarce), so easy frames pay for the fast search only.

    `tilts`: when no scale places the frame as it is, it is tried again rectified as if it were an
    oblique view whose top is farther away, looking `tilt` degrees off nadir through a lens of
    `assumed_hfov_deg` (a drone camera pitched forward); the first hypothesis that verifies is kept,
    mapped back to the frame's own pixels. Nadir frames never pay for it."""

    def __init__(
        self,
        satellite_rgb: np.ndarray,
        *,
        scales: Sequence[float] = (1.0, 0.5, 0.25),
        max_features: int = 8000,
        frame_side: int = FRAME_SIDE,
        frame_features: int = FRAME_FEATURES,
        ratio: float = 0.85,
        min_inliers: int = MIN_INLIERS,
        tilts: Sequence[float] = (45.0, 60.0),
        assumed_hfov_deg: float = 70.0,
    ) -> None:
        image = as_rgb8(satellite_rgb)
        self.height, self.width = image.shape[:2]
        self.frame_side, self.frame_features = frame_side, frame_features
        self.ratio, self.min_inliers = ratio, min_inliers
        self.tilts, self.assumed_hfov_deg = tuple(tilts), assumed_hfov_deg
        # A scale that leaves the image tiny adds nothing; keep each scale's features separately.
        self.levels = [
            (float(s), sift_features(image, scale=float(s), max_features=max_features))
            for s in scales
            if s > 0 and min(self.width, self.height) * s >= 64
        ]
        # A scale with few features is searched exactly from the start (cheaper than FLANN there), so needs no index.
        self.indexes = [
            flann_index(f.descriptors)
            if len(f.descriptors) >= 2 and not exact_is_cheaper(frame_features, len(f.descriptors))
            else None
            for _, f in self.levels
        ]

    def locate(
        self, frame_rgb: np.ndarray, *, near: np.ndarray | None = None, features: FrameFeatures | None = None
    ) -> Placement | None:
        """The frame's placement on the map (source "matching"), or None when no scale gives a verified
        homography. `near`: a (4, 2) quad the frame is expected around; only map features in a square twice
        its size around its centre are matched (faster, and fewer look-alikes elsewhere). `features`: the
        frame's own, described already (describe_frame at this locator's frame_side and frame_features, e.g.
        from a FrameFeatureCache that chaining shares); otherwise they are described here, once for every
        pass."""
        frame = as_rgb8(frame_rgb)
        fh, fw = frame.shape[:2]
        if features is None:
            features = describe_frame(frame, side=self.frame_side, max_features=self.frame_features)
        elif not features.described_as(self.frame_side, self.frame_features) or features.size != (fw, fh):
            raise ValueError("features described at other settings or of another frame")
        reasons: list[str] = []
        best = self._match(features.features, (fw, fh), near, reasons)
        extra: dict[str, Any] = {}
        if best is None:  # scarce matches: the approximate search may have missed the few true ones
            best = self._match(features.features, (fw, fh), near, reasons, exact=True)
            extra = {"exact_search": True} if best is not None else {}
        if best is None:
            best, extra = self._tilted(frame, near, reasons)
        if best is None:
            return None
        found, confidence, scale = best
        return Placement(
            source=MATCHING,
            quad=found.quad,
            frame_size=(fw, fh),
            confidence=confidence,
            uncertainty_px=max(found.uncertainty_px, found.reproj_px),
            homography=found.homography / found.homography[2, 2],
            details={**found.numbers(), "scale": scale, **extra, "refused": reasons},
        )

    def _tilted(
        self, frame: np.ndarray, near: np.ndarray | None, reasons: list[str]
    ) -> tuple[tuple[Verified, float, float] | None, dict[str, Any]]:
        """The first tilt hypothesis under which the rectified frame verifies, mapped back to the frame."""
        fh, fw = frame.shape[:2]
        for tilt in self.tilts:
            rectifier = oblique_rectifier(fw, fh, tilt, self.assumed_hfov_deg, side=self.frame_side)
            if rectifier is None:
                continue
            to_frame, size = rectifier
            view = warp_view(frame, to_frame, size)
            own = describe_frame(view, side=self.frame_side, max_features=self.frame_features).features
            rectified = self._match(own, size, near, reasons)
            if rectified is None:
                continue
            back = _through(rectified[0], to_frame, (fw, fh))
            if back is not None:
                return (back, rectified[1], rectified[2]), {"tilt_hypothesis": tilt}
        return None, {}

    def _match(
        self,
        own: Features,
        frame_size: tuple[int, int],
        near: np.ndarray | None,
        reasons: list[str],
        *,
        exact: bool = False,
    ) -> tuple[Verified, float, float] | None:
        """The best verified homography of the frame's features `own` over the map's scales (by confidence),
        with its scale. `exact`: the second pass, over the scales the first searched approximately only, which
        stops at the first that verifies (exact search at the full map scale is most of a hard frame's time)."""
        fw, fh = frame_size
        best: tuple[Verified, float, float] | None = None
        for (scale, sat), index in zip(self.levels, self.indexes, strict=True):
            keep = _near_mask(sat.points, near) if near is not None else None
            points = sat.points if keep is None else sat.points[keep]
            descriptors = sat.descriptors if keep is None else sat.descriptors[keep]
            if exact and exact_is_cheaper(len(own.descriptors), len(descriptors)):
                continue  # the first pass searched this scale exactly already
            prebuilt = index if keep is None else None  # a subset needs its own index
            pairs = mutual_matches(own.descriptors, descriptors, ratio=self.ratio, index=prebuilt, exact=exact)
            # Tolerance: 3 px at the scale the map was described at.
            found, reason = verify(
                own.points[pairs[:, 0]] if len(pairs) else np.zeros((0, 2)),
                points[pairs[:, 1]] if len(pairs) else np.zeros((0, 2)),
                (fw, fh),
                threshold_px=3.0 / scale,
                min_inliers=self.min_inliers,
            )
            if found is None:
                reasons.append(f"{fw}x{fh} at map scale {scale:g}{' (exact)' if exact else ''}: {reason}")
                continue
            confidence = matching_confidence(found.inliers, found.inlier_ratio)
            if best is None or confidence > best[1]:
                best = (found, confidence, scale)
            if confidence >= 0.99 or exact:  # another scale cannot do meaningfully better / costs too much
                break
        return best


def _through(found: Verified, to_frame: np.ndarray, frame_size: tuple[int, int]) -> Verified | None:
    """A match of the rectified frame as a match of the frame itself, verified again in its pixels."""
    homography = found.homography @ np.linalg.inv(to_frame)
    homography = homography / homography[2, 2]
    src = project(to_frame, found.src)
    if degenerate_reason(homography, frame_size, src, max_anisotropy=MAX_ANISOTROPY):
        return None
    quad = project(homography, frame_corners(*frame_size))
    sd = corner_uncertainty(homography, src, max(found.reproj_px, 0.3), frame_size)
    return Verified(homography, quad, found.inliers, found.matches, found.reproj_px, sd, src, found.dst)


def _near_mask(points: np.ndarray, near: np.ndarray) -> np.ndarray:
    q = np.asarray(near, float).reshape(4, 2)
    centre = q.mean(axis=0)
    reach = max(float(np.ptp(q[:, 0])), float(np.ptp(q[:, 1])), 16.0)
    return np.all(np.abs(points - centre) <= reach, axis=1)
