"""review.scoring.metrics: the benchmark's metrics on hand-computed cases."""

from __future__ import annotations

import math

import pytest

from review.scoring.extraction import extract
from review.scoring.metrics import (
    MRA_THRESHOLDS,
    acc_at_1s,
    chance,
    chance_adjusted,
    choice_bias,
    clustered_se,
    item_value,
    macro_mean,
    macro_weights,
    mean_relative_accuracy,
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


def test_clustered_se_by_hand() -> None:
    # given four items in two scenes, each item's weight 1/4, centred on the mean 0.5
    values, weights = [1.0, 1.0, 0.0, 0.0], [0.25] * 4
    # cluster sums: scene a 0.25 * (0.5 + 0.5) = 0.25, scene b -0.25; G/(G-1) = 2
    se = clustered_se(values, weights, ["a", "a", "b", "b"], [0.5] * 4)
    assert se == pytest.approx(math.sqrt(2 * (0.25**2 + 0.25**2)))
    # one scene alone gives no variance estimate
    assert clustered_se(values, weights, ["a"] * 4, [0.5] * 4) == 0.0


def test_macro_mean_weighs_groups_not_items() -> None:
    assert macro_mean({"a": [1.0, 1.0, 1.0], "b": [0.0]}) == 0.5
    items = [{"t": "a"}, {"t": "a"}, {"t": "a"}, {"t": "b"}]
    assert macro_weights(items, lambda i: i["t"]) == pytest.approx([1 / 6, 1 / 6, 1 / 6, 1 / 2])


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


def test_choice_bias_of_nothing() -> None:
    assert choice_bias([], 4) == {"entropy": 0.0, "p_mode": 0.0, "kl_uniform": 0.0}
