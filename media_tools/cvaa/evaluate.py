"""Recall@k and IoU of locators (the model's window index, the SIFT baseline) on pairs with known footprints.

The rule for a hit: a predicted box is correct when its IoU with the true footprint's bounding box is at
least `iou_threshold` (0.3 by default), or when its centre lies inside the true footprint quadrilateral
(a window smaller or larger than the footprint but on the right place still guides a reader).
Recall@k: the share of frames with a hit among the first k boxes. Mean IoU: of the first box against
the footprint's bounding box, 0 for a frame with no answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .footprints import points_in_quad, quad_bbox
from .located import Located
from .pairs import Pair
from .windows import box_iou

HIT_IOU = 0.3

Locate = Callable[[np.ndarray], Located]


def hits(located: Located, quad: np.ndarray, *, iou_threshold: float = HIT_IOU) -> np.ndarray:
    """(k,) bool: which of the predicted boxes count as correct for the true footprint `quad`."""
    if not located.found:
        return np.zeros(0, bool)
    ious = box_iou(located.boxes, quad_bbox(quad)[None])[:, 0]
    centres = (located.boxes[:, :2] + located.boxes[:, 2:]) / 2
    return (ious >= iou_threshold) | points_in_quad(centres, quad)


@dataclass
class EvalReport:
    method: str
    frames: int
    recall: dict[int, float]  # k -> recall@k
    mean_iou: float
    no_answer: int  # frames for which the locator found nothing
    per_frame: list[dict[str, Any]] = field(default_factory=list)

    def row(self) -> str:
        recalls = "  ".join(f"R@{k} {v:.2f}" for k, v in sorted(self.recall.items()))
        return f"{self.method:<10} n={self.frames:<4} {recalls}  mIoU {self.mean_iou:.3f}  no answer {self.no_answer}"


def evaluate(
    locate: Locate,
    pairs: Sequence[Pair],
    *,
    method: str = "",
    ks: Sequence[int] = (1, 5),
    iou_threshold: float = HIT_IOU,
) -> EvalReport:
    """Run `locate` on every pair's frame and score it against the pair's footprint (rule: module doc)."""
    per_frame, first_hits = [], dict.fromkeys(ks, 0)
    for pair in pairs:
        answer = locate(pair.frame)
        method = method or answer.method
        correct = hits(answer, pair.quad, iou_threshold=iou_threshold)
        iou = float(box_iou(answer.boxes[0], quad_bbox(pair.quad)[None])[0, 0]) if answer.found else 0.0
        for k in ks:
            first_hits[k] += bool(correct[:k].any())
        rank = int(np.argmax(correct)) + 1 if correct.any() else None
        per_frame.append({"found": answer.found, "iou": iou, "hit_rank": rank})
    n = len(pairs)
    return EvalReport(
        method=method,
        frames=n,
        recall={k: first_hits[k] / n if n else 0.0 for k in ks},
        mean_iou=float(np.mean([f["iou"] for f in per_frame])) if n else 0.0,
        no_answer=sum(not f["found"] for f in per_frame),
        per_frame=per_frame,
    )


def compare(
    locators: Mapping[str, Locate], pairs: Sequence[Pair], *, ks: Sequence[int] = (1, 5), iou_threshold: float = HIT_IOU
) -> dict[str, EvalReport]:
    """evaluate() for each named locator on the same pairs, e.g. {"cvaa": ..., "sift": ...}."""
    return {name: evaluate(fn, pairs, method=name, ks=ks, iou_threshold=iou_threshold) for name, fn in locators.items()}


def report_table(reports: Mapping[str, EvalReport]) -> str:
    """The reports side by side, one line each."""
    return "\n".join(r.row() for r in reports.values())
