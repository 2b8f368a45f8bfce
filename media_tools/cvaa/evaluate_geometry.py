"""Scoring geometric placement (geometry.py) and chaining (tracking.py) by the rules of evaluate.py, beside
chance and the old SIFT baseline, with the reliability of their confidence.

Chaining is scored on a clip: one anchor (the first frame, in clip order, that map matching places with
confidence >= 0.5: a real pipeline's choice, not the truth) and every other frame reached by chaining
from it; "chaining + map" also re-anchors on the map every few steps (tracking.chain with a locator).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .baseline import SiftLocator
from .evaluate import (
    HIT_IOU,
    EvalReport,
    Locate,
    ReliabilityBin,
    evaluate,
    evaluate_answers,
    located_from_placement,
    random_locator,
    random_windows,
    reliability,
)
from .geometry import GeometricLocator
from .located import Located
from .pairs import Pair
from .placement import Placement
from .tracking import chain

ANCHOR_CONFIDENCE = 0.5


def geometry_locate(locator: GeometricLocator, method: str = "geometry") -> Locate:
    return lambda frame: located_from_placement(locator.locate(frame), method)


def chained_placements(
    clip: Sequence[np.ndarray], locator: GeometricLocator, *, reanchor_every: int | None = None
) -> tuple[list[Placement | None], int | None]:
    """Placements of every clip frame chained from the first confidently matched one (its index, or None
    when no frame is)."""
    for i, frame in enumerate(clip):
        placed = locator.locate(frame)
        if placed is not None and placed.confidence >= ANCHOR_CONFIDENCE:
            if reanchor_every is None:
                return chain(clip, {i: placed}), i
            return chain(clip, {i: placed}, locator=locator, reanchor_every=reanchor_every), i
    return [None] * len(clip), None


def chaining_reports(
    clip: Sequence[np.ndarray],
    clip_index: Sequence[int],
    pairs: Sequence[Pair],
    locator: GeometricLocator,
    *,
    metres_per_px: float | None,
    reanchor_every: int = 5,
) -> tuple[dict[str, EvalReport], dict[str, list[Located]], dict[str, int | None]]:
    """The "chaining" and "chaining + map" rows on a clip: reports, the answers they scored, and the
    clip index each was anchored on."""
    reports, scored, anchors = {}, {}, {}
    for name, every in (("chaining", None), ("chaining + map", reanchor_every)):
        placed, anchor = chained_placements(clip, locator, reanchor_every=every)
        chained = [located_from_placement(placed[i], name) for i in clip_index]
        reports[name] = evaluate_answers(chained, pairs, method=name, metres_per_px=metres_per_px)
        scored[name], anchors[name] = chained, anchor
    return reports, scored, anchors


@dataclass
class GeometryEval:
    reports: dict[str, EvalReport]
    reliability: dict[str, list[ReliabilityBin]]  # per method: confidence bins against hits
    anchors: dict[str, int | None] = field(default_factory=dict)  # chaining rows: the anchor's clip index


def _confidences(answers: Sequence[Located]) -> list[float]:
    return [float(a.scores[0]) if a.found else -1.0 for a in answers]


def evaluate_geometry(
    image: np.ndarray,
    pairs: Sequence[Pair],
    *,
    boxes: np.ndarray,
    metres_per_px: float | None,
    clip: Sequence[np.ndarray] = (),
    clip_index: Sequence[int] = (),
    locator: GeometricLocator | None = None,
    sift: bool = True,
    reanchor_every: int = 5,
) -> GeometryEval:
    """Geometry (and, given a clip, chaining without and with re-anchoring) beside chance on `boxes`
    (expected and one seeded draw) and the old SIFT baseline, all on the same pairs."""
    locator = locator or GeometricLocator(image)
    answers = [located_from_placement(locator.locate(p.frame), "geometry") for p in pairs]
    reports = {"geometry": evaluate_answers(answers, pairs, method="geometry", metres_per_px=metres_per_px)}
    scored = {"geometry": answers}
    anchors: dict[str, int | None] = {}
    if clip and clip_index:
        chained, answered, anchors = chaining_reports(
            clip, clip_index, pairs, locator, metres_per_px=metres_per_px, reanchor_every=reanchor_every
        )
        reports.update(chained)
        scored.update(answered)
    reports["random (expected)"] = random_windows(boxes, pairs, metres_per_px=metres_per_px)
    reports["random (seed 0)"] = evaluate(
        random_locator(boxes, k=5, seed=0), pairs, method="random (seed 0)", metres_per_px=metres_per_px
    )
    if sift:
        old = SiftLocator(image)
        reports["sift (old)"] = evaluate(old.locate, pairs, method="sift (old)", metres_per_px=metres_per_px)
    bins = {
        name: reliability(_confidences(got), [f["iou"] >= HIT_IOU for f in reports[name].per_frame])
        for name, got in scored.items()
    }
    return GeometryEval(reports, bins, anchors)
