"""What a retriever's top window is worth: its evidence, a significance test, and a calibrated probability.

Raw cosine scores say little: a model can score every window of every image at 0.92-0.96, so a fixed
score threshold hides nothing. What separates a real match from a guess is how far the top window stands
out from the windows elsewhere on the same image. Per query:

- `margin`: the top box's score minus the best score among boxes that do not overlap it at all (the
  "next" place the frame could be; overlapping boxes share pixels and score alike by construction);
- `scale`: the robust spread of all the image's box scores (1.4826 x median absolute deviation, the
  standard deviation for a normal law, untouched by the few windows that do match);
- `margin_z` = margin / scale: the evidence, free of the model's score scale.

Significance (an extreme-value test): under the null hypothesis that no place is special, the box scores
are draws from one light-tailed law over `n` independent places (`n`: the most boxes of the image that do
not overlap one another). For such laws the gap between the largest and second largest of n draws,
multiplied by a_n = sqrt(2 ln n) / scale, is asymptotically Exp(1) (spacings of the top order statistics
in the Gumbel domain). So p = exp(-sqrt(2 ln n) * margin_z) is the chance of a margin at least this large
when nothing matches. A flat score map (margin_z near 0) gives p near 1; a single peak gives p near 0.
Checked by simulation (tests/media_tools/cvaa/test_calibration.py): on i.i.d. normal score maps it rejects
0.7 % (81 boxes, 25 places) and 0.15 % (Brighton's 424 boxes, 35 places) at level 0.01: conservative,
since more boxes than `n` compete for the top. Real score maps are smoother (overlapping windows share
pixels), which the count of non-overlapping places is meant to absorb; that is an assumption, not a proof.

Calibration: a logistic curve P(top-1 is a hit | margin_z) = 1 / (1 + exp(-(a + b * margin_z))) fitted on
held-out pairs (a hit: IoU >= 0.5 with the true footprint's box) by Newton's method on Platt's smoothed
targets ((hits + 1) / (hits + 2) and 1 / (misses + 2)), so a set with only hits or only misses still
gives finite, honest probabilities; `b` is kept >= 0 so more evidence never lowers the probability.
`reliability` bins held-out pairs by predicted probability and sets the observed hit rate beside it.
Pure numpy: no torch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .windows import box_iou

MAD_TO_SD = 1.4826
EVIDENCE = "margin_z"
RELIABILITY_BINS = 5


@dataclass(frozen=True)
class Evidence:
    """How far a query's top box stands out (module doc). `p_value` is the extreme-value test's."""

    top: float
    rival: float  # best score of a box not overlapping the top one (= top when there is none)
    scale: float
    margin_z: float
    places: int  # n of the test: boxes that do not overlap one another
    p_value: float

    def to_dict(self) -> dict[str, float]:
        return {k: round(float(v), 6) for k, v in asdict(self).items()}


def disjoint_count(boxes: np.ndarray) -> int:
    """The number of boxes a greedy pass keeps when no kept box may overlap another (largest first is
    not needed: any maximal disjoint set estimates how many independent places the image has)."""
    boxes = np.asarray(boxes, float).reshape(-1, 4)
    kept: list[int] = []
    for i in np.argsort((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), kind="stable"):
        if kept and box_iou(boxes[i], boxes[kept]).max() > 0:
            continue
        kept.append(int(i))
    return len(kept)


def evidence(scores: np.ndarray, boxes: np.ndarray, *, places: int | None = None) -> Evidence:
    """The evidence for the best of `scores` (one per box of `boxes`, the image's every distinct box).
    `places` (disjoint_count of the boxes) can be passed when known, since it depends on the layout only."""
    scores = np.asarray(scores, float).ravel()
    boxes = np.asarray(boxes, float).reshape(-1, 4)
    n = places if places is not None else disjoint_count(boxes)
    if len(scores) == 0:
        return Evidence(math.nan, math.nan, 0.0, 0.0, n, 1.0)
    best = int(np.argmax(scores))
    apart = box_iou(boxes[best], boxes)[0] <= 0
    rival = float(scores[apart].max()) if apart.any() else float(scores[best])
    scale = MAD_TO_SD * float(np.median(np.abs(scores - np.median(scores))))
    if not scale > 0:  # more than half the boxes score alike: fall back to the plain spread
        scale = float(scores.std())
    margin = float(scores[best]) - rival
    margin_z = margin / scale if scale > 0 else 0.0
    return Evidence(float(scores[best]), rival, scale, margin_z, n, p_value(margin_z, n))


def p_value(margin_z: float, places: int) -> float:
    """The extreme-value test's p (module doc): exp(-sqrt(2 ln n) * margin_z), 1 for n < 2."""
    if places < 2 or not margin_z > 0:
        return 1.0
    return float(math.exp(-math.sqrt(2 * math.log(places)) * margin_z))


def _sigmoid(x: np.ndarray | float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -500, 500)))


@dataclass(frozen=True)
class Calibration:
    """P(top-1 hit) = sigmoid(a + b * margin_z), fitted on `pairs` held-out pairs with `hits` hits."""

    a: float
    b: float
    pairs: int
    hits: int
    evidence: str = EVIDENCE
    method: str = "platt"
    reliability: list[dict[str, float]] = field(default_factory=list)
    brier: float = math.nan
    ece: float = math.nan

    def probability(self, margin_z: float | np.ndarray) -> np.ndarray:
        return _sigmoid(self.a + self.b * np.asarray(margin_z, float))

    def __call__(self, margin_z: float) -> float:
        return float(self.probability(margin_z))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("brier", "ece"):
            data[key] = None if math.isnan(data[key]) else round(data[key], 4)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Calibration:
        """Inverse of to_dict. Raises ValueError when malformed or for another evidence or method."""
        try:
            if data.get("evidence", EVIDENCE) != EVIDENCE or data.get("method", "platt") != "platt":
                raise ValueError(f"calibration of {data.get('evidence')!r} by {data.get('method')!r} is not read here")
            return cls(
                a=float(data["a"]),
                b=float(data["b"]),
                pairs=int(data["pairs"]),
                hits=int(data["hits"]),
                reliability=list(data.get("reliability") or []),
                brier=math.nan if data.get("brier") is None else float(data["brier"]),
                ece=math.nan if data.get("ece") is None else float(data["ece"]),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a calibration: {exc}") from exc

    def table(self) -> str:
        """The reliability table, one line per bin."""
        lines = [f"calibration on {self.pairs} held-out pairs ({self.hits} top-1 hits): P(hit) = "
                 f"sigmoid({self.a:.3f} + {self.b:.3f} x margin_z); Brier {self.brier:.3f}, ECE {self.ece:.3f}",
                 "predicted bin    pairs  mean predicted  observed hit rate"]  # fmt: skip
        for row in self.reliability:
            lines.append(
                f"[{row['low']:.1f}, {row['high']:.1f})".ljust(17)
                + f"{int(row['pairs']):>5}  {row['predicted']:>14.3f}  {row['observed']:>17.3f}"
            )
        return "\n".join(lines)


def fit_calibration(
    margin_z: Sequence[float] | np.ndarray, hit: Sequence[bool] | np.ndarray, *, iterations: int = 100
) -> Calibration:
    """Platt scaling of `hit` on `margin_z` (module doc). Raises ValueError with no pairs."""
    x = np.asarray(margin_z, float).ravel()
    y = np.asarray(hit, bool).ravel()
    if len(x) == 0 or len(x) != len(y):
        raise ValueError("calibration needs one hit flag per evidence value, at least one pair")
    pos, neg = int(y.sum()), int((~y).sum())
    target = np.where(y, (pos + 1) / (pos + 2), 1 / (neg + 2))
    a, b = _newton(x, target, iterations)
    # All hits or all misses say nothing about the slope, and evidence that predicts misses is no
    # evidence: the (smoothed) base rate for everyone.
    if b < 0 or pos == 0 or neg == 0:
        a, b = float(np.log(target.mean() / (1 - target.mean()))), 0.0
    fitted = Calibration(a, b, len(x), pos)
    predicted = fitted.probability(x)
    table = reliability(predicted, y)
    ece = sum(r["pairs"] * abs(r["predicted"] - r["observed"]) for r in table) / len(x)
    brier = float(np.mean((predicted - y) ** 2))
    return Calibration(a, b, len(x), pos, reliability=table, brier=brier, ece=float(ece))


def _newton(x: np.ndarray, t: np.ndarray, iterations: int) -> tuple[float, float]:
    """Maximum likelihood of sigmoid(a + b x) against soft targets t, with a tiny ridge for stability."""
    design = np.column_stack([np.ones_like(x), x])
    w = np.zeros(2)
    for _ in range(iterations):
        p = _sigmoid(design @ w)
        grad = design.T @ (p - t) + 1e-6 * w
        hess = design.T @ (design * (p * (1 - p))[:, None]) + 1e-6 * np.eye(2)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return float(w[0]), float(w[1])


def reliability(predicted: np.ndarray, hit: np.ndarray, bins: int = RELIABILITY_BINS) -> list[dict[str, float]]:
    """Per bin of predicted probability ([0, 0.2), ..., [0.8, 1.0]): pairs, mean predicted, observed rate.
    Empty bins are left out."""
    predicted, hit = np.asarray(predicted, float), np.asarray(hit, bool)
    edges = np.linspace(0, 1, bins + 1)
    which = np.clip(np.digitize(predicted, edges[1:-1]), 0, bins - 1)
    rows = []
    for i in range(bins):
        inside = which == i
        if inside.any():
            rows.append(
                {
                    "low": float(edges[i]),
                    "high": float(edges[i + 1]),
                    "pairs": int(inside.sum()),
                    "predicted": round(float(predicted[inside].mean()), 4),
                    "observed": round(float(hit[inside].mean()), 4),
                }
            )
    return rows


def significant(ev: Evidence, *, alpha: float) -> bool:
    """Whether the top box stands out from the rest at level `alpha` (extreme-value test, module doc)."""
    return ev.p_value < alpha
