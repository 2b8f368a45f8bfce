"""The human baseline: reviewers' blind answers scored against the final keys with the benchmark's
own metrics and averaging, with a bootstrap confidence interval that resamples scenes (items cut
from one video are not independent, so resampling items would make the interval too narrow)."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from review.scoring.extraction import extract
from review.scoring.metrics import item_value

BOOTSTRAP_ROUNDS = 1000
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float
    n: int


def item_scores(items: list[dict[str, Any]], answers: dict[str, list[Any]]) -> dict[str, float]:
    """Per item with at least one blind answer: the mean score of its reviewers' answers."""
    out = {}
    for item in items:
        replies = answers.get(item["id"]) or []
        if replies:
            out[item["id"]] = sum(item_value(item, extract(item, r)) for r in replies) / len(replies)
    return out


def _macro(items: list[dict[str, Any]], scores: dict[str, float], key: str) -> float:
    groups: dict[str, list[float]] = defaultdict(list)
    for item in items:
        if item["id"] in scores:
            groups[item[key]].append(scores[item["id"]])
    means = [sum(v) / len(v) for v in groups.values() if v]
    return sum(means) / len(means) if means else 0.0


def human_baseline(
    items: list[dict[str, Any]], answers: dict[str, list[Any]], *, group: str = "task", seed: int = 0
) -> dict[str, Estimate]:
    """Per task (or dimension) and "overall" (the mean of task scores): estimate and interval."""
    scores = item_scores(items, answers)
    scored = [i for i in items if i["id"] in scores]
    by_scene: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in scored:
        by_scene[str(item.get("scene", item["id"]))].append(item)
    scenes = sorted(by_scene)
    rng = random.Random(seed)
    names = sorted({i[group] for i in scored})
    draws: dict[str, list[float]] = defaultdict(list)
    for _ in range(BOOTSTRAP_ROUNDS if len(scenes) > 1 else 0):
        sample = [item for s in (rng.choice(scenes) for _ in scenes) for item in by_scene[s]]
        # resampled items may repeat, so give each draw its own ids
        sample = [{**item, "id": f"{item['id']}~{k}"} for k, item in enumerate(sample)]
        sample_scores = {s["id"]: scores[s["id"].rsplit("~", 1)[0]] for s in sample}
        for name in names:
            part = [s for s in sample if s[group] == name]
            if part:
                draws[name].append(sum(sample_scores[s["id"]] for s in part) / len(part))
        draws["overall"].append(_macro(sample, sample_scores, "task"))
    out = {}
    for name in [*names, "overall"]:
        members = scored if name == "overall" else [i for i in scored if i[group] == name]
        value = _macro(members, scores, "task")
        low, high = _interval(draws.get(name, []), value)
        out[name] = Estimate(value=value, low=low, high=high, n=len(members))
    return out


def _interval(values: list[float], point: float) -> tuple[float, float]:
    if not values:
        return point, point
    ordered = sorted(values)
    tail = (1 - CONFIDENCE) / 2
    return ordered[int(tail * (len(ordered) - 1))], ordered[int((1 - tail) * (len(ordered) - 1))]
