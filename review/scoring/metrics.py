"""The benchmark's metrics, exactly as the paper defines them, and the statistics around them.

- Multiple choice and yes/no: accuracy. Numbers: Mean Relative Accuracy over C = {0.50, ..., 0.95},
  MRA = mean over theta of 1(|y_hat - y| / |y| < 1 - theta), and for y = 0 correct iff y_hat = 0.
  Timestamps: ACC@1s = 1(|y_hat - y| <= 1 s).
- A task's score is the mean over its items; a dimension's is the mean of its task scores; the
  overall score is the mean of the task scores (the paper's human 91.3 % is that mean), so a task
  with many items does not outweigh one with few.
- Standard errors are clustered by scene: items cut from one video share its difficulty and are
  not independent, so treating them as such overstates how sure a score is.

Pure functions over plain records (a frozen release's items), no Django.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from .extraction import Extraction

# Exact thresholds: theta = k / 20 for k = 10 .. 19. Floats would put 1 - 0.95 a hair above 0.05,
# so an error of exactly 5 % would pass the strictest threshold; rationals compare as the paper writes.
_THETAS = tuple(Fraction(k, 20) for k in range(10, 20))
MRA_THRESHOLDS = tuple(float(t) for t in _THETAS)  # 0.50 .. 0.95, for display
ONE_SECOND = Fraction(1)
# Fewer scenes than this and a clustered standard error is not estimated (with 2 clusters the
# sandwich has 1 degree of freedom; it printed "± 0.0"): the table says so instead.
MIN_CLUSTERS = 5

Number = int | float | str | Decimal | Fraction


def exact(value: Number) -> Fraction | None:
    """The exact rational a number stands for, as written: a float is read through its shortest
    decimal repr (2.2 is 11/5, not the binary double near it), a string or Decimal as a decimal.
    None for NaN, infinities and text that is not a number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    try:
        number = Decimal(repr(value)) if isinstance(value, float) else Decimal(str(value).strip())
    except InvalidOperation:
        return None
    return Fraction(number) if number.is_finite() else None


def mean_relative_accuracy(pred: Number, truth: Number) -> float:
    """Mean over theta in C of 1(|pred - truth| / |truth| < 1 - theta), compared exactly; for a
    truth of 0 the item is right iff the prediction is exactly 0."""
    p, y = exact(pred), exact(truth)
    if p is None or y is None:
        return 0.0
    if y == 0:
        return 1.0 if p == 0 else 0.0
    error = abs(p - y)
    # error / |y| < 1 - theta, multiplied out so nothing is divided or rounded
    return sum(1 for theta in _THETAS if error < (1 - theta) * abs(y)) / len(_THETAS)


def acc_at_1s(pred: Number, truth: Number) -> float:
    """1 when |pred - truth| <= 1 s, compared exactly (|2.2 - 1.2| is exactly 1, so right)."""
    p, y = exact(pred), exact(truth)
    if p is None or y is None:
        return 0.0
    return 1.0 if abs(p - y) <= ONE_SECOND else 0.0


def item_value(item: dict[str, Any], extraction: Extraction) -> float:
    """Score in [0, 1] of one extracted answer for one release item; unreadable answers score 0."""
    if not extraction.parsed:
        return 0.0
    fmt = item["answer_format"]
    if fmt in ("number", "timestamp"):
        # the key is text in the release, the reading a Decimal or a number: both compared exactly
        truth, pred = item["answer"], extraction.value
        return mean_relative_accuracy(pred, truth) if fmt == "number" else acc_at_1s(pred, truth)
    return 1.0 if str(extraction.value).strip().lower() == str(item["answer"]).strip().lower() else 0.0


def chance(item: dict[str, Any]) -> float | None:
    """What guessing uniformly among the options scores; None where there are no options (a
    number or a time has no random row in the paper's table either)."""
    options = item.get("options") or []
    return 1.0 / len(options) if options else None


def chance_adjusted(accuracy: float, chance_level: float) -> float:
    """(acc - chance) / (1 - chance): 0 at guessing, 1 when perfect, negative below chance."""
    return (accuracy - chance_level) / (1.0 - chance_level)


def choice_bias(positions: Iterable[int], n_options: int) -> dict[str, float]:
    """Normalized entropy, p_mode and KL divergence from uniform (nats) of chosen option positions
    (GeoX-Bench's choice-bias figures); all 0 when nothing was chosen."""
    from annotator.compiling.audit import position_spread

    counts = Counter(positions)
    if not counts or n_options < 2:
        return {"entropy": 0.0, "p_mode": 0.0, "kl_uniform": 0.0}
    entropy, p_mode, kl = position_spread([counts.get(k, 0) for k in range(n_options)])
    return {"entropy": entropy, "p_mode": p_mode, "kl_uniform": kl}


def clustered_se(values: Sequence[float], groups: Sequence[str], clusters: Sequence[str]) -> float | None:
    """Cluster-robust standard error of the mean of group means (a task's score: one group; the
    overall score: the mean of task means). statsmodels fits the values on one indicator per group
    and gives the CR1 covariance clustered by `clusters` (scenes); the mean of group means is the
    average of the coefficients. None when there are fewer than MIN_CLUSTERS clusters (a sandwich
    over 2 scenes is 0 or noise, not an error bar) or no residual degree of freedom."""
    if len(set(clusters)) < MIN_CLUSTERS or len(values) <= len(set(groups)):
        return None
    import numpy as np
    import statsmodels.api as sm

    names = sorted(set(groups))
    column = {g: k for k, g in enumerate(names)}
    design = np.zeros((len(values), len(names)))
    design[np.arange(len(values)), [column[g] for g in groups]] = 1.0
    codes = np.unique(np.asarray(clusters, dtype=str), return_inverse=True)[1]
    fit = sm.OLS(np.asarray(values, dtype=float), design).fit(cov_type="cluster", cov_kwds={"groups": codes})
    contrast = np.full(len(names), 1.0 / len(names))
    variance = float(contrast @ np.asarray(fit.cov_params()) @ contrast)
    return math.sqrt(max(variance, 0.0))


def se_note(se: float | None, scenes: int) -> str:
    """How a missing standard error reads in a table."""
    if se is not None:
        return ""
    if scenes < MIN_CLUSTERS:
        return f"too few scenes ({scenes}) for an SE"
    return "too few items for an SE"


def normal_two_sided_p(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2))
