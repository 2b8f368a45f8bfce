"""review.scoring.metrics: the benchmark's metrics on hand-computed cases."""

from __future__ import annotations

import math

import pytest

from review.scoring.metrics import (
    MRA_THRESHOLDS,
    PredictionError,
    acc_at_1s,
    choice_bias,
    item_score,
    load_jsonl,
    mean_relative_accuracy,
    predictions_by_id,
    score,
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
        ({"answer_format": "yes_no", "answer": "yes"}, " Yes ", 1.0),
        ({"answer_format": "yes_no", "answer": "yes"}, "no", 0.0),
        ({"answer_format": "yes_no", "answer": "yes"}, None, 0.0),
        ({"answer_format": "multiple_choice", "answer": "B) north-east"}, "b) North-East", 1.0),
        ({"answer_format": "number", "answer": "10"}, "11.2", 0.8),
        ({"answer_format": "number", "answer": "10"}, 10, 1.0),
        ({"answer_format": "number", "answer": "10"}, "ten", 0.0),
        ({"answer_format": "number", "answer": "10"}, "nan", 0.0),
        ({"answer_format": "number", "answer": "10"}, None, 0.0),
        ({"answer_format": "timestamp", "answer": "12.5"}, 13.5, 1.0),
        ({"answer_format": "timestamp", "answer": "12.5"}, "13.6", 0.0),
        ({"answer_format": "timestamp", "answer": "12.5"}, "inf", 0.0),
    ],
)
def test_item_score(item: dict, prediction: object, expected: float) -> None:
    assert item_score(item, prediction) == pytest.approx(expected)


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


ITEMS = [
    {
        "id": "skm-000001",
        "task": "target_visibility",
        "dimension": "perception",
        "answer_format": "yes_no",
        "answer": "yes",
        "options": ["yes", "no"],
    },
    {
        "id": "skm-000002",
        "task": "target_visibility",
        "dimension": "perception",
        "answer_format": "yes_no",
        "answer": "no",
        "options": ["yes", "no"],
    },
    {
        "id": "skm-000003",
        "task": "zone_counting",
        "dimension": "perception",
        "answer_format": "number",
        "answer": "10",
        "options": [],
    },
    {
        "id": "skm-000004",
        "task": "temporal_grounding",
        "dimension": "localization",
        "answer_format": "timestamp",
        "answer": "4.0",
        "options": [],
    },
]


def test_score_per_task_dimension_and_overall() -> None:
    # given right, wrong, 0.8 MRA and a missing timestamp
    preds = {"skm-000001": "yes", "skm-000002": "yes", "skm-000003": "11.2"}

    # when scored
    report = score(ITEMS, preds)

    # then each group is the mean of its items; the missing one counts 0 and is listed
    assert report.per_task == {
        "target_visibility": (0.5, 2),
        "temporal_grounding": (0.0, 1),
        "zone_counting": (pytest.approx(0.8), 1),
    }
    assert report.per_dimension == {"localization": (0.0, 1), "perception": (pytest.approx(1.8 / 3), 3)}
    assert report.overall == (pytest.approx(1.8 / 4), 4)
    assert report.missing == ["skm-000004"]
    # and the chosen yes/no positions (0, 0) are fully biased
    assert report.bias == {"2-option": pytest.approx({"entropy": 0.0, "p_mode": 1.0, "kl_uniform": math.log(2)})}


def test_score_with_no_predictions_is_zero_and_lists_all() -> None:
    report = score(ITEMS, {})
    assert report.overall == (0.0, 4)
    assert report.missing == [i["id"] for i in ITEMS]
    assert report.bias == {}


def test_load_jsonl_names_the_bad_line() -> None:
    assert load_jsonl(['{"id": "a", "answer": 1}', "", '{"id": "b", "answer": 2}'], "preds") == [
        {"id": "a", "answer": 1},
        {"id": "b", "answer": 2},
    ]
    with pytest.raises(PredictionError, match=r"^preds line 3: not JSON"):
        load_jsonl(['{"id": "a"}', "", "{oops"], "preds")
    with pytest.raises(PredictionError, match=r"^preds line 1: expected an object$"):
        load_jsonl(["[1, 2]"], "preds")


def test_predictions_by_id_refuses_gaps_and_duplicates() -> None:
    assert predictions_by_id([{"id": "a", "answer": "yes"}]) == {"a": "yes"}
    with pytest.raises(PredictionError, match=r"^prediction 2: needs 'id' and 'answer'$"):
        predictions_by_id([{"id": "a", "answer": "yes"}, {"id": "b"}])
    with pytest.raises(PredictionError, match=r"^prediction 2: id a appears twice$"):
        predictions_by_id([{"id": "a", "answer": "yes"}, {"id": "a", "answer": "no"}])
