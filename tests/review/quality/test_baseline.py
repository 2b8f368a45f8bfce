"""review.quality.baseline: blind answers scored with the benchmark's metrics, intervals by scene."""

from __future__ import annotations

import pytest

from review.quality.baseline import human_baseline, item_scores


def _item(n: int, task: str, scene: str, answer: str = "yes", fmt: str = "yes_no") -> dict:
    options = ["yes", "no"] if fmt == "yes_no" else []
    return {"id": f"i{n}", "task": task, "scene": scene, "answer": answer, "options": options, "answer_format": fmt}


ITEMS = [
    _item(1, "target_visibility", "s1"),
    _item(2, "target_visibility", "s1"),
    _item(3, "target_visibility", "s2"),
    _item(4, "target_visibility", "s3"),
    _item(5, "zone_counting", "s1", "10", "number"),
    _item(6, "zone_counting", "s2", "4", "number"),
]


def test_item_scores_average_reviewers_with_the_metric() -> None:
    answers = {"i1": ["yes", "no"], "i5": ["11.2"], "i6": ["four"]}
    assert item_scores(ITEMS, answers) == pytest.approx({"i1": 0.5, "i5": 0.8, "i6": 1.0})


def test_baseline_per_task_and_overall_with_scene_intervals() -> None:
    answers = {"i1": ["yes"], "i2": ["yes"], "i3": ["no"], "i4": ["yes"], "i5": ["10"], "i6": ["2"]}
    result = human_baseline(ITEMS, answers)
    assert result["target_visibility"].value == pytest.approx(0.75)
    assert result["zone_counting"].value == pytest.approx(0.5)  # exact, and half off (MRA 0)
    assert result["overall"].value == pytest.approx((0.75 + 0.5) / 2)
    for estimate in result.values():
        assert estimate.low <= estimate.value <= estimate.high
    # scenes disagree, so the interval has width; the same seed gives the same interval
    assert result["target_visibility"].high - result["target_visibility"].low > 0.2
    assert human_baseline(ITEMS, answers) == result


def test_all_right_gives_a_point_interval() -> None:
    answers = {i["id"]: [i["answer"]] for i in ITEMS}
    result = human_baseline(ITEMS, answers)
    assert (result["overall"].low, result["overall"].value, result["overall"].high) == (1.0, 1.0, 1.0)
