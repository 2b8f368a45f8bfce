"""Recall@k, IoU and centre error of locators (the model's window index, the SIFT baseline, random windows)
on pairs with known footprints.

The rule for a hit: a predicted box is correct when its IoU with the true footprint's axis-aligned bounding
box is at least 0.5 (`HIT_IOU`, the usual detection threshold). Nothing else counts: an earlier rule also
took any box whose centre fell inside the footprint, and since footprints cover much of a map, 64-87 % of
all windows passed it. Recall@k: the share of frames with a hit among the first k boxes. Mean IoU: of the
first box, 0 for a frame with no answer. Centre error: from the first box's centre to the centre of the
footprint's box, in pixels, in metres (given the map's metres per pixel) and as a fraction of the
footprint's size (the side of a square of its area); infinite for a frame with no answer, so the median
cannot improve by answering less.

Chance is reported beside every method (`random_windows`: the exact expectation of drawing k distinct
windows uniformly; `random_locator`: one seeded draw), so a recall reads against what the window layout
gives for free.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .footprints import quad_area, quad_bbox, quad_up_angle
from .located import Located
from .pairs import Pair
from .placement import Placement
from .windows import box_iou

HIT_IOU = 0.5

Locate = Callable[[np.ndarray], Located]


def hits(located: Located, quad: np.ndarray, *, iou_threshold: float = HIT_IOU) -> np.ndarray:
    """(k,) bool: which predicted boxes have IoU >= `iou_threshold` with the bounding box of `quad`."""
    if not located.found:
        return np.zeros(0, bool)
    return box_iou(located.boxes, quad_bbox(quad)[None])[:, 0] >= iou_threshold


def footprint_size(quad: np.ndarray) -> float:
    """The footprint's size in pixels: the side of a square with its area."""
    return math.sqrt(quad_area(quad))


def centre_errors(boxes: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """(n,) pixels from each box's centre to the centre of the footprint's bounding box."""
    target = quad_bbox(quad)
    centres = (np.atleast_2d(boxes)[:, :2] + np.atleast_2d(boxes)[:, 2:]) / 2
    return np.hypot(*(centres - (target[:2] + target[2:]) / 2).T)


@dataclass
class EvalReport:
    """`centre_error_px`, `centre_error_m` (None without a scale) and `centre_error_frac` are medians
    over all frames (infinite when more than half have no answer)."""

    method: str
    frames: int
    recall: dict[int, float]  # k -> recall@k
    mean_iou: float
    no_answer: int  # frames for which the locator found nothing
    centre_error_px: float = math.inf
    centre_error_m: float | None = None
    centre_error_frac: float = math.inf
    per_frame: list[dict[str, Any]] = field(default_factory=list)

    def row(self) -> str:
        recalls = "  ".join(f"R@{k} {v:.2f}" for k, v in sorted(self.recall.items()))
        where = f"{self.centre_error_m:.1f} m" if self.centre_error_m is not None else f"{self.centre_error_px:.0f} px"
        return (
            f"{self.method:<18} n={self.frames:<4} {recalls}  mIoU {self.mean_iou:.3f}  "
            f"centre err {where} = {self.centre_error_frac:.2f} footprint  no answer {self.no_answer}"
        )


def _report(
    method: str, per_frame: list[dict[str, Any]], recall: dict[int, float], metres_per_px: float | None
) -> EvalReport:
    n = len(per_frame)
    median_px = float(np.median([f["centre_error_px"] for f in per_frame])) if n else math.inf
    return EvalReport(
        method=method,
        frames=n,
        recall=recall,
        mean_iou=float(np.mean([f["iou"] for f in per_frame])) if n else 0.0,
        no_answer=sum(not f["found"] for f in per_frame),
        centre_error_px=median_px,
        centre_error_m=median_px * metres_per_px if metres_per_px else None,
        centre_error_frac=float(np.median([f["centre_error_frac"] for f in per_frame])) if n else math.inf,
        per_frame=per_frame,
    )


def evaluate(
    locate: Locate,
    pairs: Sequence[Pair],
    *,
    method: str = "",
    ks: Sequence[int] = (1, 5),
    iou_threshold: float = HIT_IOU,
    metres_per_px: float | None = None,
) -> EvalReport:
    """Run `locate` on every pair's frame and score it against the pair's footprint (rules: module doc)."""
    per_frame, first_hits = [], dict.fromkeys(ks, 0)
    for pair in pairs:
        answer = locate(pair.frame)
        method = method or answer.method
        correct = hits(answer, pair.quad, iou_threshold=iou_threshold)
        iou = float(box_iou(answer.boxes[0], quad_bbox(pair.quad)[None])[0, 0]) if answer.found else 0.0
        error = float(centre_errors(answer.boxes[0], pair.quad)[0]) if answer.found else math.inf
        for k in ks:
            first_hits[k] += bool(correct[:k].any())
        margin_z = answer.details.get("evidence", {}).get("margin_z")
        per_frame.append(
            {
                "found": answer.found,
                "hit_at_1": bool(correct[:1].any()),
                "margin_z": None if margin_z is None else float(margin_z),
                "iou": iou,
                "hit_rank": int(np.argmax(correct)) + 1 if correct.any() else None,
                "centre_error_px": error,
                "centre_error_frac": error / footprint_size(pair.quad),
            }
        )
    recall = {k: first_hits[k] / len(pairs) if pairs else 0.0 for k in ks}
    return _report(method, per_frame, recall, metres_per_px)


def calibration_samples(report: EvalReport) -> tuple[np.ndarray, np.ndarray]:
    """(margin_z, top-1 hit) of every frame of `report` the locator answered with evidence (the window
    index's answers carry it): what calibration.fit_calibration takes."""
    rows = [f for f in report.per_frame if f.get("margin_z") is not None]
    return np.array([f["margin_z"] for f in rows], float), np.array([f["hit_at_1"] for f in rows], bool)


def random_windows(
    boxes: np.ndarray,
    pairs: Sequence[Pair],
    *,
    ks: Sequence[int] = (1, 5),
    iou_threshold: float = HIT_IOU,
    metres_per_px: float | None = None,
    method: str = "random (expected)",
) -> EvalReport:
    """The exact expectation for a locator that answers k distinct boxes drawn uniformly from `boxes`:
    recall@k is the chance that not all k miss, mean IoU and centre error those of the average box."""
    boxes = np.asarray(boxes, float).reshape(-1, 4)
    n = len(boxes)
    per_frame, chance = [], dict.fromkeys(ks, 0.0)
    for pair in pairs:
        good = int((box_iou(boxes, quad_bbox(pair.quad)[None])[:, 0] >= iou_threshold).sum())
        for k in ks:
            chance[k] += 1.0 - _all_miss(n, good, k)
        errors = centre_errors(boxes, pair.quad) if n else np.full(1, math.inf)
        per_frame.append(
            {
                "found": n > 0,
                "iou": float(box_iou(boxes, quad_bbox(pair.quad)[None]).mean()) if n else 0.0,
                "hit_windows": good,
                "centre_error_px": float(errors.mean()),
                "centre_error_frac": float(errors.mean()) / footprint_size(pair.quad),
            }
        )
    recall = {k: chance[k] / len(pairs) if pairs else 0.0 for k in ks}
    return _report(method, per_frame, recall, metres_per_px)


def _all_miss(n: int, good: int, k: int) -> float:
    """Chance that k distinct draws from n boxes, `good` of them hits, are all misses: C(n-good, k) / C(n, k)."""
    if n == 0:
        return 1.0
    p = 1.0
    for i in range(min(k, n)):
        p *= max(0, n - good - i) / (n - i)
    return p


def random_locator(boxes: np.ndarray, *, k: int = 5, seed: int = 0) -> Locate:
    """A locator that answers k distinct boxes of `boxes` drawn uniformly, from one seeded generator
    (so a run is repeatable): one draw of what `random_windows` gives the expectation of."""
    boxes = np.asarray(boxes, float).reshape(-1, 4)
    rng = np.random.default_rng(seed)

    def locate(_frame: np.ndarray) -> Located:
        if not len(boxes):
            return Located.nothing("random")
        pick = boxes[rng.choice(len(boxes), size=min(k, len(boxes)), replace=False)]
        x1, y1, x2, y2 = pick.T
        quads = np.stack([np.column_stack(c) for c in ((x1, y1), (x2, y1), (x2, y2), (x1, y2))], axis=1)
        zeros = np.zeros(len(pick))
        return Located("random", pick, zeros, zeros, quads)

    return locate


def compare(
    locators: Mapping[str, Locate],
    pairs: Sequence[Pair],
    *,
    ks: Sequence[int] = (1, 5),
    iou_threshold: float = HIT_IOU,
    metres_per_px: float | None = None,
) -> dict[str, EvalReport]:
    """evaluate() for each named locator on the same pairs, e.g. {"cvaa": ..., "sift": ...}."""
    return {
        name: evaluate(fn, pairs, method=name, ks=ks, iou_threshold=iou_threshold, metres_per_px=metres_per_px)
        for name, fn in locators.items()
    }


def against_baselines(
    locate: Locate,
    boxes: np.ndarray,
    pairs: Sequence[Pair],
    *,
    metres_per_px: float | None,
    sift: Locate | None = None,
) -> tuple[dict[str, EvalReport], int]:
    """The model's report beside chance on the same windows (the expected value and one seeded
    draw) and, when given, SIFT's; with how many footprints any window can hit at all (a recall
    can reach only that share)."""
    locators: dict[str, Locate] = {"cvaa": locate, "random (seed 0)": random_locator(boxes, k=5, seed=0)}
    if sift is not None:
        locators["sift"] = sift
    reports = compare(locators, pairs, metres_per_px=metres_per_px)
    expected = random_windows(boxes, pairs, metres_per_px=metres_per_px)
    reachable = sum(f["hit_windows"] > 0 for f in expected.per_frame)
    return {"cvaa": reports.pop("cvaa"), "random (expected)": expected, **reports}, reachable


def report_table(reports: Mapping[str, EvalReport]) -> str:
    """The reports side by side, one line each."""
    return "\n".join(r.row() for r in reports.values())


def located_from_placement(placement: Placement | None, method: str) -> Located:
    """A placement as a one-box answer (its quad's box), so geometry, chaining and the learned model
    are scored by the same rules; None is "nothing found". The placement's confidence is the score."""
    if placement is None:
        return Located.nothing(method)
    quad = np.asarray(placement.quad, float)
    return Located(
        method,
        quad_bbox(quad)[None],
        np.array([placement.confidence]),
        np.array([quad_up_angle(quad)]),
        quad[None],
        details={"source": placement.source, "confidence": placement.confidence, "placement": placement.to_dict()},
    )


def evaluate_answers(
    answers: Sequence[Located],
    pairs: Sequence[Pair],
    *,
    method: str,
    ks: Sequence[int] = (1, 5),
    iou_threshold: float = HIT_IOU,
    metres_per_px: float | None = None,
) -> EvalReport:
    """evaluate() for answers computed beforehand, one per pair in order (a chained video, where a
    frame's answer depends on the frames before it)."""
    if len(answers) != len(pairs):
        raise ValueError(f"{len(answers)} answers for {len(pairs)} pairs")
    given = iter(answers)
    return evaluate(
        lambda _frame: next(given),
        pairs,
        method=method,
        ks=ks,
        iou_threshold=iou_threshold,
        metres_per_px=metres_per_px,
    )


@dataclass(frozen=True)
class ReliabilityBin:
    low: float
    high: float
    frames: int
    hits: int

    @property
    def hit_rate(self) -> float:
        return self.hits / self.frames if self.frames else math.nan


def reliability(
    confidences: Sequence[float], hit: Sequence[bool], *, edges: Sequence[float] = (0.0, 0.1, 0.5, 0.9, 1.0)
) -> list[ReliabilityBin]:
    """How often answers in each confidence bin [low, high) (the last bin closed) were hits: what a
    confidence means, measured. Frames with no answer belong in no bin."""
    conf, ok = np.asarray(confidences, float), np.asarray(hit, bool)
    out = []
    for i, (low, high) in enumerate(itertools.pairwise(edges)):
        last = i == len(edges) - 2
        inside = (conf >= low) & ((conf <= high) if last else (conf < high))
        out.append(ReliabilityBin(float(low), float(high), int(inside.sum()), int((inside & ok).sum())))
    return out


def reliability_table(bins: Sequence[ReliabilityBin]) -> str:
    return "  ".join(
        f"[{b.low:.1f}, {b.high:.1f}{']' if b.high >= 1 else ')'}: {b.hits}/{b.frames}"
        + (f" = {b.hit_rate:.2f}" if b.frames else "")
        for b in bins
    )
