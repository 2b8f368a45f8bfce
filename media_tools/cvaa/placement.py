"""Where one video frame lies on one satellite image, whatever placed it: the common answer of every
placement method (control points, telemetry, feature matching, frame-to-frame chaining, the learned
retriever), so the workspace, releases and assisted trajectories read one shape.

`homography` maps the frame's pixels (its own width x height, x right, y down) to satellite pixels; it is
None where only a footprint is known (a retriever's window). `quad` is the frame's TL, TR, BR, BL in
satellite pixels. `confidence` is in [0, 1]: a number that must mean something (each method documents
what); `uncertainty_px` is the expected error of a footprint corner in satellite pixels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

# The sources, best first where several place one frame (a caller keeps the most trusted).
CONTROL_POINTS = "control_points"
SAME_FRAME = "same_frame"
MATCHING = "matching"
CHAINING = "chaining"
TELEMETRY = "telemetry"
LEARNED = "learned"
SOURCES = (CONTROL_POINTS, SAME_FRAME, MATCHING, CHAINING, TELEMETRY, LEARNED)


@dataclass(frozen=True)
class Placement:
    source: str
    quad: np.ndarray  # (4, 2) TL, TR, BR, BL in satellite pixels
    frame_size: tuple[int, int]  # (width, height) of the frame the homography reads
    confidence: float
    uncertainty_px: float
    homography: np.ndarray | None = None  # (3, 3) frame px -> satellite px
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"unknown placement source {self.source!r}; expected one of {', '.join(SOURCES)}")
        if np.asarray(self.quad).shape != (4, 2):
            raise ValueError("quad must be 4 corners (TL, TR, BR, BL) of x, y")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"confidence must be in [0, 1], got {self.confidence}")
        if not self.uncertainty_px >= 0:
            raise ValueError(f"uncertainty_px must be >= 0, got {self.uncertainty_px}")
        if self.homography is not None and np.asarray(self.homography).shape != (3, 3):
            raise ValueError("homography must be 3x3")

    @property
    def box(self) -> np.ndarray:
        """[x1, y1, x2, y2] around the quad."""
        q = np.asarray(self.quad, float)
        return np.concatenate([q.min(axis=0), q.max(axis=0)])

    def project(self, points: np.ndarray) -> np.ndarray:
        """(n, 2) frame pixels -> (n, 2) satellite pixels through the homography. Raises ValueError when
        the placement has none (a window box cannot project points)."""
        if self.homography is None:
            raise ValueError(f"a {self.source} placement has no homography to project points through")
        p = np.atleast_2d(np.asarray(points, float))
        h = np.column_stack([p, np.ones(len(p))]) @ np.asarray(self.homography, float).T
        return h[:, :2] / h[:, 2:3]

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "quad": np.round(np.asarray(self.quad, float), 2).tolist(),
            "frame_size": list(self.frame_size),
            "confidence": round(float(self.confidence), 4),
            "uncertainty_px": round(float(self.uncertainty_px), 2),
            "homography": None if self.homography is None else np.asarray(self.homography, float).tolist(),
            "details": self.details,
        }
