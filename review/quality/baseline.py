"""The human baseline: reviewers' blind answers scored against the final keys with the benchmark's
own metrics and averaging, with a bootstrap confidence interval that resamples scenes (items cut
from one video are not independent, so resampling items would make the interval too narrow).

Each interval is of the statistic it is reported with: a task's score is the mean of its items, a
dimension's the mean of its task scores, overall the mean of all task scores, and every bootstrap
draw computes exactly that on the resampled scenes (resampling the pooled item mean instead gave
Localization 88.9 % an interval of [90.0, 92.9]). A draw that misses one of the tasks a statistic
averages is left out of that statistic's interval (it would average other tasks). With fewer
scenes than MIN_CLUSTERS no interval is given: `note` says so."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from review.scoring.extraction import extract
from review.scoring.metrics import MIN_CLUSTERS, item_value

BOOTSTRAP_ROUNDS = 1000
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float | None  # None: too few scenes for an interval
    high: float | None
    n: int
    scenes: int = 0

    @property
    def note(self) -> str:
        return "" if self.low is not None else f"too few scenes ({self.scenes}) for an interval"


def item_scores(items: list[dict[str, Any]], answers: dict[str, list[Any]]) -> dict[str, float]:
    """Per item with at least one blind answer: the mean score of its reviewers' answers."""
    out = {}
    for item in items:
        replies = answers.get(item["id"]) or []
        if replies:
            out[item["id"]] = sum(item_value(item, extract(item, r)) for r in replies) / len(replies)
    return out


def _scene(item: dict[str, Any]) -> str:
    return str(item.get("scene", item["id"]))


def human_baseline(
    items: list[dict[str, Any]], answers: dict[str, list[Any]], *, group: str = "task", seed: int = 0
) -> dict[str, Estimate]:
    """Per task (or dimension) and "overall" (the mean of task scores): estimate and interval."""
    scores = item_scores(items, answers)
    scored = [i for i in items if i["id"] in scores]
    if not scored:
        return {}
    tasks = sorted({i["task"] for i in scored})
    names = sorted({i[group] for i in scored})
    members = {name: [i for i in scored if i[group] == name] for name in names}
    members["overall"] = scored
    # the tasks each statistic averages (a task: itself)
    averaged = {name: sorted({i["task"] for i in part}) for name, part in members.items()}
    draws = _task_means(scored, scores, tasks, seed)
    out = {}
    for name, part in members.items():
        task_means = {t: _mean([scores[i["id"]] for i in part if i["task"] == t]) for t in averaged[name]}
        value = _mean(list(task_means.values()))
        scenes = len({_scene(i) for i in part})
        columns = [tasks.index(t) for t in averaged[name]]
        low, high = _interval(draws, columns) if scenes >= MIN_CLUSTERS else (None, None)
        out[name] = Estimate(value=value, low=low, high=high, n=len(part), scenes=scenes)
    return out


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _task_means(scored: list[dict[str, Any]], scores: dict[str, float], tasks: list[str], seed: int) -> Any:
    """BOOTSTRAP_ROUNDS x tasks: each task's mean score over scenes drawn with replacement (NaN where
    a draw has none of its items)."""
    import numpy as np

    scenes = sorted({_scene(i) for i in scored})
    sums = np.zeros((len(scenes), len(tasks)))
    counts = np.zeros((len(scenes), len(tasks)))
    for item in scored:
        s, t = scenes.index(_scene(item)), tasks.index(item["task"])
        sums[s, t] += scores[item["id"]]
        counts[s, t] += 1
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(scenes), size=(BOOTSTRAP_ROUNDS, len(scenes)))
    weights = np.stack([np.bincount(row, minlength=len(scenes)) for row in picks]).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (weights @ sums) / (weights @ counts)


def _interval(draws: Any, columns: list[int]) -> tuple[float | None, float | None]:
    """Percentile interval of the mean of these task columns over the draws that have them all."""
    import numpy as np

    stat = draws[:, columns].mean(axis=1)
    stat = stat[~np.isnan(stat)]
    if stat.size == 0:
        return None, None
    tail = (1 - CONFIDENCE) / 2
    low, high = np.quantile(stat, [tail, 1 - tail])
    return float(low), float(high)
