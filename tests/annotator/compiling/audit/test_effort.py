"""annotator.compiling.audit.effort: active time per task."""

from __future__ import annotations

from annotator.compiling.audit import effort_by_task


def test_effort_is_the_median_per_task_of_items_with_time() -> None:
    pairs = [("zone_counting", 60.0), ("zone_counting", 120.0), ("zone_counting", 600.0), ("zone_counting", 0.0)]
    [effort] = effort_by_task(pairs)
    assert (effort.items, effort.median_min, effort.mean_min, effort.total_h) == (3, 2.0, 4.33, 0.22)
