"""Benchmark metrics and the scoring of predictions against a frozen release.

Pure functions over plain records (the release's items.jsonl), so scores come from what was
frozen, not from rows that may have changed since.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

MRA_THRESHOLDS = tuple(round(0.50 + 0.05 * k, 2) for k in range(10))  # 0.50 .. 0.95


class PredictionError(ValueError):
    """A predictions file cannot be scored; the message names the line."""


def mean_relative_accuracy(pred: float, truth: float) -> float:
    if truth == 0:
        return 1.0 if pred == 0 else 0.0
    rel = abs(pred - truth) / abs(truth)
    return sum(1.0 for theta in MRA_THRESHOLDS if rel < 1 - theta) / len(MRA_THRESHOLDS)


def acc_at_1s(pred: float, truth: float) -> float:
    return 1.0 if abs(pred - truth) <= 1.0 else 0.0


def _as_float(value: Any) -> float | None:
    try:
        result = float(value)
    except (TypeError, ValueError):
        return None
    return result if math.isfinite(result) else None


def item_score(item: dict[str, Any], prediction: Any) -> float:
    """Score in [0, 1] of one prediction for one release item."""
    fmt = item["answer_format"]
    if fmt in ("number", "timestamp"):
        pred, truth = _as_float(prediction), _as_float(item["answer"])
        if pred is None or truth is None:
            return 0.0
        return mean_relative_accuracy(pred, truth) if fmt == "number" else acc_at_1s(pred, truth)
    return 1.0 if str(prediction).strip().lower() == str(item["answer"]).strip().lower() else 0.0


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


@dataclass
class ScoreReport:
    per_task: dict[str, tuple[float, int]]
    per_dimension: dict[str, tuple[float, int]]
    overall: tuple[float, int]
    missing: list[str] = field(default_factory=list)
    bias: dict[str, dict[str, float]] = field(default_factory=dict)


def load_jsonl(lines: Iterable[str], what: str) -> list[dict[str, Any]]:
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise PredictionError(f"{what} line {number}: not JSON ({exc.msg})") from None
        if not isinstance(record, dict):
            raise PredictionError(f"{what} line {number}: expected an object")
        records.append(record)
    return records


def predictions_by_id(records: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for number, record in enumerate(records, 1):
        if "id" not in record or "answer" not in record:
            raise PredictionError(f"prediction {number}: needs 'id' and 'answer'")
        if record["id"] in out:
            raise PredictionError(f"prediction {number}: id {record['id']} appears twice")
        out[str(record["id"])] = record["answer"]
    return out


def score(items: list[dict[str, Any]], predictions: dict[str, Any]) -> ScoreReport:
    """Missing predictions count as wrong and are listed."""
    by_task: dict[str, list[float]] = defaultdict(list)
    by_dim: dict[str, list[float]] = defaultdict(list)
    missing, chosen = [], defaultdict(list)
    for item in items:
        if item["id"] not in predictions:
            missing.append(item["id"])
        value = item_score(item, predictions.get(item["id"]))
        by_task[item["task"]].append(value)
        by_dim[item["dimension"]].append(value)
        options = [str(o).lower() for o in item.get("options") or []]
        pred = str(predictions.get(item["id"], "")).strip().lower()
        if options and pred in options:
            chosen[len(options)].append(options.index(pred))
    all_scores = [v for values in by_task.values() for v in values]

    def mean(values: list[float]) -> tuple[float, int]:
        return (sum(values) / len(values) if values else 0.0, len(values))

    return ScoreReport(
        per_task={t: mean(v) for t, v in sorted(by_task.items())},
        per_dimension={d: mean(v) for d, v in sorted(by_dim.items())},
        overall=mean(all_scores),
        missing=missing,
        bias={f"{n}-option": choice_bias(pos, n) for n, pos in sorted(chosen.items())},
    )
