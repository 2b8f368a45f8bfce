"""review.scoring.metrics: the benchmark's metrics on hand-computed cases."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest

from review.scoring.extraction import extract
from review.scoring.metrics import (
    MIN_CLUSTERS,
    MRA_THRESHOLDS,
    acc_at_1s,
    chance,
    chance_adjusted,
    choice_bias,
    clustered_se,
    exact,
    item_value,
    mean_relative_accuracy,
    se_note,
)


def test_thresholds_are_050_to_095() -> None:
    assert MRA_THRESHOLDS == (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)


@pytest.mark.parametrize(
    ("pred", "truth", "expected"),
    [
        (10, 10, 1.0),  # exact: every threshold
        (10.4, 10, 1.0),  # relative error 0.04 < 0.05: every threshold
        (10.8, 10, 0.9),  # 0.08: all but theta = 0.95
        (11.2, 10, 0.8),  # 0.12: theta < 0.88 -> 0.50 .. 0.85
        (17, 25, 0.4),  # 0.32: theta < 0.68 -> 0.50, 0.55, 0.60, 0.65
        (33, 25, 0.4),  # symmetric above and below
        (3, 5, 0.2),  # 0.40: strictly below 1 - theta only for 0.50 and 0.55 (0.40 < 0.40 is false)
        (20, 10, 0.0),  # 1.0: none
        (0, 10, 0.0),
        (-8, -8, 1.0),
    ],
)
def test_mean_relative_accuracy(pred: float, truth: float, expected: float) -> None:
    assert mean_relative_accuracy(pred, truth) == pytest.approx(expected)


def _boundary_cases() -> list[tuple[str, str, float]]:
    """For every theta: a relative error of exactly 1 - theta (not below it: that threshold fails),
    one a hair below (it passes) and one a hair above (it fails), on a truth of 20 whose errors
    are the steps 1, 2, ... 10 of 20 that binary floats cannot hold exactly."""
    cases = []
    for k in range(len(MRA_THRESHOLDS)):
        passing_below = k  # thresholds 0.50 .. theta - 0.05 pass when the error is exactly 1 - theta
        error = 20 - (10 + k)  # |pred - 20| = 20 * (1 - theta): 10, 9, ... 1
        for pred in (20 + error, 20 - error):
            cases.append((str(pred), "20", passing_below / 10))
        for sign in (1, -1):
            below = 20 + sign * (error - 0.001)
            above = 20 + sign * (error + 0.001)
            cases.append((f"{below:.3f}", "20", (passing_below + 1) / 10))
            cases.append((f"{above:.3f}", "20", passing_below / 10))
    return cases


@pytest.mark.parametrize(("pred", "truth", "expected"), _boundary_cases())
def test_mra_at_just_below_and_just_above_every_threshold(pred: str, truth: str, expected: float) -> None:
    assert mean_relative_accuracy(pred, truth) == expected
    assert mean_relative_accuracy(float(pred), float(truth)) == expected  # a float reads as it is written


def test_mra_of_21_for_20_is_09() -> None:
    # |21 - 20| / 20 = 0.05 is not < 1 - 0.95: every threshold but the last
    assert mean_relative_accuracy(21, 20) == 0.9
    assert mean_relative_accuracy("21", "20") == 0.9 and mean_relative_accuracy(19.0, 20.0) == 0.9


@pytest.mark.parametrize(
    ("pred", "truth", "expected"),
    [
        (2.2, 1.2, 1.0),  # |2.2 - 1.2| is exactly 1 (1.0000000000000002 in binary floats)
        ("2.2", "1.2", 1.0),
        (0.2, 1.2, 1.0),
        (2.2001, 1.2, 0.0),
        (2.1999, 1.2, 1.0),
        (0.1999, 1.2, 0.0),
        (13.7, 12.7, 1.0),
        ("1:05", "65", 0.0),  # not a number: extraction reads clock times, the metric does not
    ],
)
def test_acc_at_1s_at_just_below_and_just_above_one_second(pred: object, truth: object, expected: float) -> None:
    assert acc_at_1s(pred, truth) == expected  # type: ignore[arg-type]


def test_exact_reads_numbers_as_written() -> None:
    assert exact(2.2) == exact("2.2") == exact(Decimal("2.2")) == Fraction(11, 5)
    assert exact(float("nan")) is None and exact("inf") is None and exact("ten") is None and exact(True) is None


@pytest.mark.parametrize(("pred", "expected"), [(0, 1.0), (0.0, 1.0), (1, 0.0), (-0.001, 0.0)])
def test_mra_with_zero_truth_needs_exactly_zero(pred: float, expected: float) -> None:
    assert mean_relative_accuracy(pred, 0) == expected


@pytest.mark.parametrize(
    ("pred", "truth", "expected"),
    [
        (5.0, 5.0, 1.0),
        (6.0, 5.0, 1.0),
        (4.0, 5.0, 1.0),
        (6.001, 5.0, 0.0),
        (3.999, 5.0, 0.0),
        (0.0, 12.5, 0.0),
    ],
)
def test_acc_at_1s_includes_the_boundary(pred: float, truth: float, expected: float) -> None:
    assert acc_at_1s(pred, truth) == expected


@pytest.mark.parametrize(
    ("item", "prediction", "expected"),
    [
        ({"answer_format": "yes_no", "answer": "yes", "options": ["yes", "no"]}, " Yes ", 1.0),
        ({"answer_format": "yes_no", "answer": "yes", "options": ["yes", "no"]}, "no", 0.0),
        ({"answer_format": "yes_no", "answer": "yes", "options": ["yes", "no"]}, None, 0.0),
        ({"answer_format": "multiple_choice", "answer": "north-east", "options": ["north", "north-east"]}, "(B)", 1.0),
        ({"answer_format": "number", "answer": "10"}, "11.2", 0.8),
        ({"answer_format": "number", "answer": "10"}, 10, 1.0),
        ({"answer_format": "number", "answer": "10"}, "ten", 1.0),
        ({"answer_format": "number", "answer": "0"}, "zero", 1.0),
        ({"answer_format": "number", "answer": "10"}, "nan", 0.0),
        ({"answer_format": "number", "answer": "10"}, None, 0.0),
        ({"answer_format": "timestamp", "answer": "12.5"}, 13.5, 1.0),
        ({"answer_format": "timestamp", "answer": "12.5"}, "13.6", 0.0),
        ({"answer_format": "timestamp", "answer": "65"}, "1:05", 1.0),
        ({"answer_format": "timestamp", "answer": "12.5"}, "inf", 0.0),
    ],
)
def test_item_value(item: dict, prediction: object, expected: float) -> None:
    assert item_value(item, extract(item, prediction)) == pytest.approx(expected)


def test_chance_and_chance_adjusted() -> None:
    assert chance({"options": ["a", "b", "c", "d"]}) == 0.25
    assert chance({"options": []}) is None
    assert chance_adjusted(0.25, 0.25) == 0.0
    assert chance_adjusted(1.0, 0.25) == 1.0
    assert chance_adjusted(0.0, 0.5) == -1.0


def _cr1(values: list[float], groups: list[str], clusters: list[str]) -> float:
    """The cluster-robust SE of the mean of group means, by hand: each item's weight is
    1 / (groups * its group's size), residuals around its group's mean, cluster sums squared,
    with the CR1 factor G / (G - 1) * (N - 1) / (N - K)."""
    sizes = {g: groups.count(g) for g in groups}
    means = {g: sum(v for v, h in zip(values, groups, strict=True) if h == g) / sizes[g] for g in sizes}
    sums: dict[str, float] = {}
    for v, g, c in zip(values, groups, clusters, strict=True):
        sums[c] = sums.get(c, 0.0) + (v - means[g]) / (len(sizes) * sizes[g])
    n, k, g = len(values), len(sizes), len(sums)
    return math.sqrt(g / (g - 1) * (n - 1) / (n - k) * sum(s * s for s in sums.values()))


def test_clustered_se_of_one_task_matches_the_hand_formula() -> None:
    # given ten items in five scenes, two per scene
    values = [1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0]
    scenes = [s for s in "abcde" for _ in range(2)]
    se = clustered_se(values, ["t"] * 10, scenes)
    # cluster sums of (x - 0.6) / 10: a 0.08, b 0.02, c -0.12, d 0.02, e 0.08; factor 5/4
    by_hand = math.sqrt(5 / 4 * (0.08**2 + 0.02**2 + 0.12**2 + 0.02**2 + 0.08**2))
    assert se == pytest.approx(by_hand, rel=1e-9) == pytest.approx(_cr1(values, ["t"] * 10, scenes), rel=1e-9)


def test_clustered_se_of_the_mean_of_task_means_weighs_tasks_not_items() -> None:
    # given two tasks of unequal size spread over six scenes
    values = [1, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0.5]
    groups = ["a"] * 8 + ["b"] * 4
    scenes = ["s1", "s2", "s3", "s4", "s5", "s6", "s1", "s2", "s3", "s4", "s5", "s6"]
    se = clustered_se(values, groups, scenes)
    assert se == pytest.approx(_cr1(values, groups, scenes), rel=1e-9)
    assert se is not None and se > 0


def test_too_few_scenes_give_no_se_and_say_so() -> None:
    values, scenes = [1.0, 0.0, 1.0, 0.0], ["a", "a", "b", "b"]
    assert MIN_CLUSTERS == 5
    assert clustered_se(values, ["t"] * 4, scenes) is None
    assert se_note(None, 2) == "too few scenes (2) for an SE"
    # five scenes, one item each per task: no residual degree of freedom either
    assert clustered_se([1.0, 0.0], ["a", "b"], ["s1", "s2"]) is None
    assert se_note(None, 6) == "too few items for an SE" and se_note(0.1, 6) == ""


def test_choice_bias_uniform() -> None:
    # given every one of 4 positions chosen equally often
    bias = choice_bias([0, 1, 2, 3] * 5, 4)
    # then entropy is maximal, the mode has 1/4, and there is no divergence from uniform
    assert bias == pytest.approx({"entropy": 1.0, "p_mode": 0.25, "kl_uniform": 0.0})


def test_choice_bias_always_the_same_position() -> None:
    bias = choice_bias([2] * 7, 4)
    assert bias == pytest.approx({"entropy": 0.0, "p_mode": 1.0, "kl_uniform": math.log(4)})
    assert f"{bias['entropy']:.3f}" == "0.000"  # not "-0.000" in the printed table


def test_choice_bias_two_of_four_positions() -> None:
    # given half on A, half on B of four options: H = ln 2 / ln 4 = 0.5, KL = ln 2
    bias = choice_bias([0, 1, 0, 1], 4)
    assert bias == pytest.approx({"entropy": 0.5, "p_mode": 0.5, "kl_uniform": math.log(2)})


def test_choice_bias_skewed_yes_no() -> None:
    # given 3 of 4 on position 0 of 2
    p = [0.75, 0.25]
    bias = choice_bias([0, 0, 0, 1], 2)
    assert bias["entropy"] == pytest.approx(-sum(x * math.log(x) for x in p) / math.log(2))
    assert bias["p_mode"] == 0.75
    assert bias["kl_uniform"] == pytest.approx(sum(x * math.log(2 * x) for x in p))


def test_choice_bias_of_one_position_against_scipy_and_hand() -> None:
    # given keys at B of four every time: entropy 0, p_mode 1, KL = ln 4
    bias = choice_bias([1] * 9, 4)
    assert (bias["entropy"], bias["p_mode"]) == (0.0, 1.0)
    assert bias["kl_uniform"] == pytest.approx(math.log(4), abs=1e-4)


def test_choice_bias_of_nothing() -> None:
    assert choice_bias([], 4) == {"entropy": 0.0, "p_mode": 0.0, "kl_uniform": 0.0}
