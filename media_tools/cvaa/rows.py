"""Every row of the CVAA evaluation on one held-out set: the model plain, gated by its evidence and
calibration, and re-ranked by geometry, beside geometry alone, chance and SIFT; the reliability of the
calibration on this set; and the frames geometry alone cannot place.

Rows (all on the same pairs, hit = IoU >= 0.5 with the footprint's box, evaluate.py):
- `cvaa`: the retriever's top-5 windows;
- `cvaa shown`: the same, but a frame whose top box the workspace would hide (not significant, or its
  calibrated probability under `min_confidence`) counts as no answer: its recall@1 is the share of all
  frames that get a shown, correct box, and `precision` (printed apart) the hit rate among shown boxes;
- `cvaa + geometry`: the top-5 windows re-ranked by the geometric locator near each (rerank.py);
- `geometry`: the geometric locator on the whole map, one answer;
- chance (expected and one seeded draw) and SIFT, as against_baselines gives them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .calibration import Calibration, reliability
from .evaluate import EvalReport, Locate, compare, located_from_placement, random_locator, random_windows
from .located import Located
from .pairs import Pair
from .rerank import NearLocator, rerank


@dataclass
class SetRows:
    reports: dict[str, EvalReport]
    reachable: int
    shown: int = 0  # frames whose top box passes the gate
    shown_hits: int = 0
    reliability: list[dict[str, float]] = field(default_factory=list)  # this set, the checkpoint's curve
    geometry_fails: dict[str, Any] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """The rows and the notes that read them, as eval_cvaa prints them."""
        out = [r.row() for r in self.reports.values()]
        n = next(iter(self.reports.values())).frames if self.reports else 0
        precision = f"{self.shown_hits / self.shown:.2f}" if self.shown else "-"
        out.append(f"cvaa shown: {self.shown} of {n} top boxes pass the gate; hit rate among them {precision}")
        if self.reliability:
            out.append("reliability of the checkpoint's calibration on this set (top-1 hit):")
            out.append("  predicted bin  pairs  mean predicted  observed")
            for r in self.reliability:
                span = f"[{r['low']:.1f}, {r['high']:.1f})"
                out.append(f"  {span:<13}  {int(r['pairs']):>5}  {r['predicted']:>14.3f}  {r['observed']:>8.3f}")
        if self.geometry_fails:
            g = self.geometry_fails
            out.append(
                f"where geometry alone misses ({g['frames']} frames): recall@5 cvaa {g['cvaa']:.2f}, "
                f"cvaa + geometry {g['cvaa + geometry']:.2f}, geometry 0.00"
            )
        return out


def gate(located: Located, calibration: Calibration | None, *, alpha: float, min_confidence: float) -> bool:
    """Whether the workspace would show this answer's top box (selectors.box_shown's rule)."""
    ev = located.details.get("evidence") or {}
    if not located.found or ev.get("p_value", 1.0) >= alpha:
        return False
    return calibration is None or calibration(float(ev["margin_z"])) >= min_confidence


def set_rows(
    locate: Locate,
    boxes: np.ndarray,
    pairs: Sequence[Pair],
    *,
    metres_per_px: float | None,
    calibration: Calibration | None,
    alpha: float,
    min_confidence: float,
    sift: Locate | None = None,
    geometry: NearLocator | None = None,
) -> SetRows:
    """Every row for one set (module doc). The retriever runs once per frame; its answers are reused."""
    answers = {id(p.frame): locate(p.frame) for p in pairs}

    def cached(frame: np.ndarray) -> Located:
        return answers[id(frame)]

    shown_ids = {k for k, a in answers.items() if gate(a, calibration, alpha=alpha, min_confidence=min_confidence)}

    def gated(frame: np.ndarray) -> Located:
        return answers[id(frame)] if id(frame) in shown_ids else Located.nothing("cvaa shown")

    locators: dict[str, Callable[[np.ndarray], Located]] = {"cvaa": cached, "cvaa shown": gated}
    if geometry is not None:
        locators["cvaa + geometry"] = lambda f: rerank(f, answers[id(f)], geometry)
        locators["geometry"] = lambda f: located_from_placement(geometry.locate(f), "geometry")
    locators["random (seed 0)"] = random_locator(boxes, k=5, seed=0)
    if sift is not None:
        locators["sift"] = sift
    reports = compare(locators, pairs, metres_per_px=metres_per_px)
    expected = random_windows(boxes, pairs, metres_per_px=metres_per_px)
    reachable = sum(f["hit_windows"] > 0 for f in expected.per_frame)
    ordered: dict[str, EvalReport] = {
        k: reports[k] for k in ("cvaa", "cvaa shown", "cvaa + geometry", "geometry") if k in reports
    }
    ordered["random (expected)"] = expected
    ordered.update({k: v for k, v in reports.items() if k not in ordered})
    result = SetRows(ordered, reachable)
    shown = reports["cvaa shown"].per_frame
    result.shown = sum(f["found"] for f in shown)
    result.shown_hits = sum(bool(f["found"] and f["hit_at_1"]) for f in shown)
    if calibration is not None:
        plain = reports["cvaa"].per_frame
        z = np.array([f["margin_z"] if f["margin_z"] is not None else 0.0 for f in plain])
        result.reliability = reliability(calibration.probability(z), np.array([f["hit_at_1"] for f in plain]))
    if geometry is not None:
        result.geometry_fails = _where_geometry_fails(reports)
    return result


def _where_geometry_fails(reports: dict[str, EvalReport]) -> dict[str, Any]:
    """Recall@5 of the retriever, alone and re-ranked, on the frames geometry alone does not hit."""
    missed = [i for i, f in enumerate(reports["geometry"].per_frame) if not f["hit_at_1"]]

    def recall5(name: str) -> float:
        rows = reports[name].per_frame
        return (
            sum(rows[i]["hit_rank"] is not None and rows[i]["hit_rank"] <= 5 for i in missed) / len(missed)
            if missed
            else 0.0
        )

    return {"frames": len(missed), "cvaa": recall5("cvaa"), "cvaa + geometry": recall5("cvaa + geometry")}
