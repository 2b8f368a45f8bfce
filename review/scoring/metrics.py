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
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from .extraction import Extraction

MRA_THRESHOLDS = tuple(round(0.50 + 0.05 * k, 2) for k in range(10))  # 0.50 .. 0.95


def mean_relative_accuracy(pred: float, truth: float) -> float:
    if truth == 0:
        return 1.0 if pred == 0 else 0.0
    rel = abs(pred - truth) / abs(truth)
    return sum(1.0 for theta in MRA_THRESHOLDS if rel < 1 - theta) / len(MRA_THRESHOLDS)


def acc_at_1s(pred: float, truth: float) -> float:
    return 1.0 if abs(pred - truth) <= 1.0 else 0.0


def item_value(item: dict[str, Any], extraction: Extraction) -> float:
    """Score in [0, 1] of one extracted answer for one release item; unreadable answers score 0."""
    if not extraction.parsed:
        return 0.0
    fmt = item["answer_format"]
    if fmt in ("number", "timestamp"):
        truth = float(item["answer"])
        pred = float(extraction.value)
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
    """Normalized entropy, p_mode and KL divergence from uniform of chosen option positions."""
    counts = Counter(positions)
    total = sum(counts.values())
    if total == 0 or n_options < 2:
        return {"entropy": 0.0, "p_mode": 0.0, "kl_uniform": 0.0}
    probs = [counts.get(k, 0) / total for k in range(n_options)]
    # max(): one position only gives -0.0, which would print as "-0.000"
    entropy = max(0.0, -sum(p * math.log(p) for p in probs if p > 0) / math.log(n_options))
    kl = sum(p * math.log(p * n_options) for p in probs if p > 0)
    return {"entropy": entropy, "p_mode": max(probs), "kl_uniform": kl}


def macro_mean(values: dict[str, list[float]]) -> float:
    """Mean of the per-group means (groups without values are left out)."""
    means = [sum(v) / len(v) for v in values.values() if v]
    return sum(means) / len(means) if means else 0.0


def macro_weights(items: list[dict[str, Any]], group: Callable[[dict[str, Any]], str]) -> list[float]:
    """Each item's weight in a mean of group means: 1 / (number of groups * its group's size)."""
    sizes = Counter(group(i) for i in items)
    return [1.0 / (len(sizes) * sizes[group(i)]) for i in items]


def clustered_se(values: list[float], weights: list[float], clusters: list[str], centres: list[float]) -> float:
    """Cluster-robust standard error of sum(w * x) where each x is measured around its centre
    (its group's mean): the variance of the cluster sums, with the G / (G - 1) small-sample factor."""
    sums: dict[str, float] = defaultdict(float)
    for x, w, c, m in zip(values, weights, clusters, centres, strict=True):
        sums[c] += w * (x - m)
    g = len(sums)
    if g < 2:
        return 0.0
    return math.sqrt(g / (g - 1) * sum(s * s for s in sums.values()))


def normal_two_sided_p(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2))
