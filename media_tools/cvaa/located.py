"""What a locator answers for one frame: ranked boxes on the satellite image, and optionally a heatmap."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Located:
    """Best first. `boxes` (k, 4) [x1, y1, x2, y2] and `quads` (k, 4, 2) (TL, TR, BR, BL of the frame as
    placed) in satellite pixels, `scores` (k,) (cosine similarity for the model, RANSAC inliers for
    the baseline), `angles` (k,) degrees clockwise of the frame's up. k is 0 when nothing matched.
    `heatmap` (rows, cols) holds, per cell of `heatmap_cell_px` pixels, the best score of the windows
    covering it. `details` carries method-specific numbers (inlier ratio ...)."""

    method: str
    boxes: np.ndarray
    scores: np.ndarray
    angles: np.ndarray
    quads: np.ndarray
    heatmap: np.ndarray | None = None
    heatmap_cell_px: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def found(self) -> bool:
        return len(self.boxes) > 0

    @classmethod
    def nothing(cls, method: str, **details: Any) -> Located:
        """An answer with no match (the frame could not be placed)."""
        empty = np.zeros((0,))
        return cls(method, np.zeros((0, 4)), empty, empty, np.zeros((0, 4, 2)), details=dict(details))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values (lists and floats), heatmap included when present."""
        data: dict[str, Any] = {
            "method": self.method,
            "boxes": np.round(self.boxes, 2).tolist(),
            "scores": [float(s) for s in self.scores],
            "angles": [float(a) for a in self.angles],
            "quads": np.round(self.quads, 2).tolist(),
            "details": self.details,
        }
        if self.heatmap is not None:
            data["heatmap"] = np.round(self.heatmap, 4).tolist()
            data["heatmap_cell_px"] = self.heatmap_cell_px
        return data
