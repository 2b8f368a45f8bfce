"""Geometric re-ranking of the retriever's top windows.

The retriever is cheap and searches the whole map; the geometric locator (geometry.py) is exact where it
verifies a homography but matches against the features of the whole map, which on a large image or for a
frame it cannot place at the whole-map scale finds nothing. Re-ranking runs the locator restricted to each
of the retriever's top-k windows (`near=` the window's quad: only map features around it are matched):
windows where it verifies a placement come first, best confidence first, each with the placement's own box
and quad (the verified footprint, not the window); the others follow in the retriever's order. When two
windows verify the same placement (IoU > 0.5), the less confident one keeps its window, unverified.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol

import numpy as np

from .located import Located
from .placement import Placement
from .windows import box_iou


class NearLocator(Protocol):
    def locate(
        self, frame_rgb: np.ndarray, *, near: np.ndarray | None = None, features: Any = None
    ) -> Placement | None: ...


def rerank(frame: np.ndarray, located: Located, geometry: NearLocator, *, method: str = "cvaa + geometry") -> Located:
    """`located`'s boxes re-ranked by running `geometry` near each (module doc). Scores: the placement's
    confidence for verified windows, 0 for the rest; details["verified"] says which were verified and
    details["retriever_rank"] where each answer stood before."""
    if not located.found:
        return Located.nothing(method, **located.details)
    verified: list[tuple[float, int, Placement]] = []
    for rank, quad in enumerate(located.quads):
        placement = geometry.locate(frame, near=quad)
        if placement is not None:
            verified.append((placement.confidence, rank, placement))
    verified.sort(key=lambda v: (-v[0], v[1]))
    # Two windows near one place verify the same placement: the copy keeps its window, unverified.
    distinct: list[tuple[float, int, Placement]] = []
    for item in verified:
        if not distinct or box_iou(item[2].box, np.array([d[2].box for d in distinct])).max() <= 0.5:
            distinct.append(item)
    verified = distinct
    seen = {rank for _, rank, _ in verified}
    order = [rank for _, rank, _ in verified] + [r for r in range(len(located.boxes)) if r not in seen]
    boxes = np.array([p.box for _, _, p in verified] + [located.boxes[r] for r in order[len(verified) :]])
    quads = np.array(
        [np.asarray(p.quad, float) for _, _, p in verified] + [located.quads[r] for r in order[len(verified) :]]
    )
    scores = np.array([c for c, _, _ in verified] + [0.0] * (len(order) - len(verified)))
    details = {
        **located.details,
        "verified": [True] * len(verified) + [False] * (len(order) - len(verified)),
        "retriever_rank": [r + 1 for r in order],
    }
    return Located(
        method, boxes.reshape(-1, 4), scores, located.angles[order], quads.reshape(-1, 4, 2), details=details
    )


def placement_near_windows(
    frame: np.ndarray, quads: np.ndarray, geometry: NearLocator, *, k: int = 5, features: Any = None
) -> Placement | None:
    """The most confident placement the locator verifies near one of the retriever's first `k` windows
    (`quads`, best first), with details["retriever_rank"] (1-based) saying which window led to it; None
    when none verifies. The coarse search for a frame whole-map matching could not place: the retriever
    says where to look, geometry decides, so a wrong window costs time and never a wrong answer.
    `features`: the frame's, described already (GeometricLocator.locate's), so each window costs a match."""
    best: Placement | None = None
    for rank, quad in enumerate(np.asarray(quads, float)[:k], start=1):
        placement = geometry.locate(frame, near=quad, features=features)
        if placement is not None and (best is None or placement.confidence > best.confidence):
            best = replace(placement, details={**placement.details, "retriever_rank": rank})
    return best
