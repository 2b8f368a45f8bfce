"""Ground truth for measuring assisted trajectories: per-frame oriented boxes (YOLO-OBB label files,
`cls x1 y1 x2 y2 x3 y3 x4 y4` normalised to 0-1) linked into one path per target.

The label files carry no target ids, so boxes are linked frame to frame: each path predicts its next
centre from its last step, and predictions and boxes are paired by least total distance (Hungarian)
within a gate. A pairing beyond the gate ends the path; an unpaired box starts a new one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


@dataclass(eq=False)
class TruthPath:
    # frame index -> the box's corners (4, 2) in frame pixels
    boxes: dict[int, np.ndarray] = field(default_factory=dict)

    def centre(self, index: int) -> np.ndarray:
        return self.boxes[index].mean(axis=0)

    @property
    def frames(self) -> list[int]:
        return sorted(self.boxes)


def read_obb(path: Path, *, width: int, height: int) -> np.ndarray:
    """(n, 4, 2) corners in pixels of a frame `width` x `height`; an empty file gives (0, 4, 2)."""
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    if not rows:
        return np.zeros((0, 4, 2))
    arr = np.asarray([[float(v) for v in row[1:9]] for row in rows]).reshape(-1, 4, 2)
    return arr * np.array([width, height])


def link(frames: list[np.ndarray], *, gate_px: float) -> list[TruthPath]:
    """Paths through `frames` (frame i's boxes, (n, 4, 2)), module doc."""
    from scipy.optimize import linear_sum_assignment

    live: list[TruthPath] = []
    done: list[TruthPath] = []
    for i, boxes in enumerate(frames):
        centres = boxes.mean(axis=1) if len(boxes) else np.zeros((0, 2))
        predicted = np.array([_predict(p, i) for p in live]).reshape(-1, 2)
        cost = np.linalg.norm(predicted[:, None] - centres[None], axis=2) if len(live) and len(boxes) else None
        taken: set[int] = set()
        kept: list[TruthPath] = []
        if cost is not None:
            rows, cols = linear_sum_assignment(cost)
            for r, c in zip(rows, cols, strict=True):
                if cost[r, c] <= gate_px:
                    live[r].boxes[i] = boxes[c]
                    taken.add(int(c))
                    kept.append(live[r])
        done.extend(p for p in live if p not in kept)
        live = kept + [TruthPath({i: boxes[c]}) for c in range(len(boxes)) if c not in taken]
    return done + live


def _predict(path: TruthPath, _: int) -> np.ndarray:
    idx = path.frames
    last = path.centre(idx[-1])
    if len(idx) < 2:
        return last
    return last + (last - path.centre(idx[-2]))
