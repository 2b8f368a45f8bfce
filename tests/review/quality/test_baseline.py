"""review.quality.baseline: blind answers scored with the benchmark's metrics; intervals that
resample scenes and the statistic reported (the mean of task means), and none with too few scenes."""

from __future__ import annotations

import random

import pytest

from review.quality.baseline import Estimate, human_baseline, item_scores


def _item(n: int, task: str, scene: str, answer: str = "yes", fmt: str = "yes_no", dim: str = "perception") -> dict:
    options = ["yes", "no"] if fmt == "yes_no" else []
    return {"id": f"i{n}", "task": task, "dimension": dim, "scene": scene, "answer": answer, "options": options,
            "answer_format": fmt}  # fmt: skip


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


def test_three_scenes_give_the_scores_and_say_there_are_too_few_for_an_interval() -> None:
    answers = {"i1": ["yes"], "i2": ["yes"], "i3": ["no"], "i4": ["yes"], "i5": ["10"], "i6": ["2"]}
    result = human_baseline(ITEMS, answers)
    assert result["target_visibility"].value == pytest.approx(0.75)
    assert result["zone_counting"].value == pytest.approx(0.5)  # exact, and half off (MRA 0)
    assert result["overall"].value == pytest.approx((0.75 + 0.5) / 2)
    assert result["overall"] == Estimate(value=0.625, low=None, high=None, n=6, scenes=3)
    assert result["overall"].note == "too few scenes (3) for an interval"
    assert result["zone_counting"].note == "too few scenes (2) for an interval"


def _unbalanced(seed: int) -> tuple[list[dict], dict[str, list[str]]]:
    """Localization-like: one task of 40 items mostly right, one of 6 items half right, one of 12,
    over 8 scenes of unequal size; Perception: one task of 20."""
    rng = random.Random(seed)
    tasks = [
        ("event_geolocalization", "localization", 40, 0.95),
        ("temporal_grounding", "localization", 6, 0.5),
        ("trajectory_matching", "localization", 12, 0.8),
        ("target_visibility", "perception", 20, 0.9),
    ]
    items, answers, n = [], {}, 0
    for task, dim, size, p in tasks:
        for _ in range(size):
            n += 1
            scene = f"s{min(7, int(rng.expovariate(0.5)))}"
            items.append(_item(n, task, scene, dim=dim))
            answers[f"i{n}"] = ["yes" if rng.random() < p else "no"]
    return items, answers


@pytest.mark.parametrize("seed", range(6))
def test_every_interval_contains_its_point_with_unbalanced_tasks(seed: int) -> None:
    items, answers = _unbalanced(seed)
    for group in ("task", "dimension"):
        result = human_baseline(items, answers, group=group, seed=seed)
        assert result["overall"].low is not None  # eight scenes: intervals are computed
        for name, estimate in result.items():
            if estimate.low is None or estimate.high is None:
                assert estimate.scenes < 5, name
                continue
            assert estimate.low <= estimate.value <= estimate.high, (group, name, estimate)


def test_a_dimension_is_the_mean_of_its_task_means_not_the_pooled_items() -> None:
    # given a big task all right and a small one all wrong in one dimension, over six scenes
    items = [_item(k, "event_geolocalization", f"s{k % 6}", dim="localization") for k in range(30)]
    items += [_item(100 + k, "temporal_grounding", f"s{k % 6}", dim="localization") for k in range(6)]
    answers = {i["id"]: ["yes" if i["task"] == "event_geolocalization" else "no"] for i in items}
    localization = human_baseline(items, answers, group="dimension")["localization"]
    # the point is (1 + 0) / 2, not 30 / 36; every draw has both tasks at 1 and 0: the interval is the point
    assert (localization.value, localization.low, localization.high) == (0.5, 0.5, 0.5)
    assert localization.scenes == 6 and localization.note == ""


def test_all_right_gives_a_point_interval_and_the_same_seed_the_same_interval() -> None:
    items = [_item(k, "target_visibility", f"s{k % 5}") for k in range(10)]
    answers = {i["id"]: [i["answer"]] for i in items}
    result = human_baseline(items, answers)
    assert (result["overall"].low, result["overall"].value, result["overall"].high) == (1.0, 1.0, 1.0)
    mixed = {i["id"]: ["yes" if k % 3 else "no"] for k, i in enumerate(items)}
    assert human_baseline(items, mixed, seed=4) == human_baseline(items, mixed, seed=4)
    wide = human_baseline(items, mixed)["target_visibility"]
    assert wide.low is not None and wide.high is not None and wide.high - wide.low > 0.1
