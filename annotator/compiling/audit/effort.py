"""Annotators' active time per task (the effort page)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean, median


@dataclass(frozen=True)
class Effort:
    task: str
    items: int  # items with time recorded
    median_min: float
    mean_min: float
    total_h: float


def effort_by_task(pairs: Sequence[tuple[str, float]]) -> list[Effort]:
    """Median, mean and total active time per task from (task, seconds) of items with time recorded."""
    by_task: dict[str, list[float]] = defaultdict(list)
    for task, seconds in pairs:
        if seconds > 0:
            by_task[task].append(seconds)
    return [
        Effort(task, len(s), round(median(s) / 60, 2), round(fmean(s) / 60, 2), round(sum(s) / 3600, 2))
        for task, s in sorted(by_task.items())
    ]
