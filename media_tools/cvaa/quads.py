"""Placements known only as a quad (a control-point or same-frame anchor, a telemetry footprint, a
retriever's window): the frame -> satellite homography their corners imply, and a confidence that says
how large their expected corner error is against the footprint's own size.

A frame seen by a pinhole camera over flat ground maps to the ground by a homography, so the four
corners of a footprint fix it exactly; a quad that folds (a bow tie) or collapses is no view of the
ground and gets none.
"""

from __future__ import annotations

import math

import numpy as np

from .footprints import frame_corners
from .placement import Placement


def homography_to_quad(width: float, height: float, quad: np.ndarray) -> np.ndarray | None:
    """The 3x3 homography taking the corners of a width x height frame (TL, TR, BR, BL) onto `quad`,
    normalised so h[2, 2] = 1; None when the quad is not a convex, non-degenerate quadrilateral."""
    dst = np.asarray(quad, float)
    if dst.shape != (4, 2) or not np.all(np.isfinite(dst)) or not _convex(dst):
        return None
    src = frame_corners(width, height)
    rows = []
    for (x, y), (u, v) in zip(src, dst, strict=True):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y, -u])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y, -v])
    # The null vector of the 8x9 system (least squares through the SVD: well conditioned for pixels).
    _, _, vt = np.linalg.svd(np.asarray(rows, float))
    h = vt[-1].reshape(3, 3)
    if abs(h[2, 2]) < 1e-12:
        return None
    return h / h[2, 2]


def _convex(quad: np.ndarray) -> bool:
    """Whether the corners, in order, turn the same way at every corner (a convex quad, either winding)."""
    turns = []
    for i in range(4):
        a, b, c = quad[i], quad[(i + 1) % 4], quad[(i + 2) % 4]
        turns.append((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]))
    scale = max(1.0, float(np.ptp(quad)) ** 2)
    return all(t > 1e-9 * scale for t in turns) or all(t < -1e-9 * scale for t in turns)


def quad_radius(quad: np.ndarray) -> float:
    """Mean distance from the quad's centre to its corners (in the quad's units): its size."""
    q = np.asarray(quad, float)
    return float(np.mean(np.linalg.norm(q - q.mean(axis=0), axis=1)))


def confidence_from_error(quad: np.ndarray, uncertainty_px: float) -> float:
    """1 - (expected corner error / footprint radius), clipped to [0, 1]: 1 is exact, 0.5 means the
    corners may be off by half the distance from the footprint's centre to its corners (where its box
    starts to miss the truth's), 0 means the error is as large as the footprint itself."""
    radius = quad_radius(quad)
    if not radius > 0 or not math.isfinite(uncertainty_px):
        return 0.0
    return float(min(1.0, max(0.0, 1.0 - uncertainty_px / radius)))


def placement_from_quad(
    *,
    source: str,
    quad: np.ndarray,
    frame_size: tuple[int, int],
    uncertainty_px: float,
    confidence: float | None = None,
    with_homography: bool = True,
    details: dict | None = None,
) -> Placement | None:
    """A Placement for a footprint known as a quad, with the homography its corners imply (unless
    `with_homography` is False: a window is no view of the frame). `confidence` defaults to
    confidence_from_error. None when the quad cannot be a footprint (folded, degenerate, not finite)."""
    q = np.asarray(quad, float)
    if q.shape != (4, 2) or not np.all(np.isfinite(q)):
        return None
    homography = homography_to_quad(frame_size[0], frame_size[1], q) if with_homography else None
    if with_homography and homography is None:
        return None
    return Placement(
        source=source,
        quad=q,
        frame_size=frame_size,
        confidence=confidence_from_error(q, uncertainty_px) if confidence is None else confidence,
        uncertainty_px=float(uncertainty_px),
        homography=homography,
        details=dict(details or {}),
    )
