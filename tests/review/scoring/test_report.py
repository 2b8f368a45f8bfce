"""review.scoring.report: the paper's macro averages, random and human rows, statistics."""

from __future__ import annotations

import math

import pytest

from review.scoring.predictions import PredictionError, load_jsonl, load_tsv, predictions_by_id
from review.scoring.report import compare, score


def _item(n: int, task: str, dim: str, answer: str, options: list[str], scene: str, fmt: str = "") -> dict:
    fmt = fmt or ("yes_no" if options == ["yes", "no"] else "multiple_choice")
    return {"id": f"skm-{n:06d}", "task": task, "dimension": dim, "answer": answer, "options": options,
            "answer_format": fmt, "scene": scene}  # fmt: skip


YN = ["yes", "no"]
ITEMS = [
    _item(1, "target_visibility", "perception", "yes", YN, "s1"),
    _item(2, "target_visibility", "perception", "no", YN, "s1"),
    _item(3, "target_visibility", "perception", "yes", YN, "s2"),
    _item(4, "target_visibility", "perception", "no", YN, "s2"),
    _item(5, "zone_counting", "perception", "10", [], "s1", "number"),
    _item(6, "temporal_grounding", "localization", "4.0", [], "s2", "timestamp"),
    _item(7, "relative_direction", "relation", "east", ["north", "east", "south", "west"], "s3"),
]
IDS = [i["id"] for i in ITEMS]


def _preds(answers: dict[str, object]) -> object:
    return predictions_by_id([{"id": k, "answer": v} for k, v in answers.items()], IDS)


def test_overall_is_the_mean_of_task_scores_not_of_items() -> None:
    # given visibility 3/4 right, the count at MRA 0.8, the time missing, the direction right
    report = score(ITEMS, _preds({"skm-000001": "yes", "skm-000002": "no", "skm-000003": "yes",
                                  "skm-000004": "yes", "skm-000005": "11.2", "skm-000007": "B"}))  # fmt: skip
    tasks = {t: row.score for t, row in report.tasks.items()}
    assert tasks == pytest.approx(
        {"target_visibility": 0.75, "zone_counting": 0.8, "temporal_grounding": 0.0, "relative_direction": 1.0}
    )
    # dimension = mean of its task scores; overall = mean of the task scores (not of the 7 items)
    assert report.dimensions == pytest.approx({"perception": 0.775, "localization": 0.0, "relation": 1.0})
    assert report.overall == pytest.approx((0.75 + 0.8 + 0.0 + 1.0) / 4)
    assert report.missing == ["skm-000006"]


def test_random_row_from_option_counts_and_none_for_numbers() -> None:
    report = score(ITEMS, _preds({}))
    assert report.tasks["target_visibility"].chance == 0.5
    assert report.tasks["relative_direction"].chance == 0.25
    assert report.tasks["zone_counting"].chance is None
    assert report.random_dimensions == {"localization": None, "perception": None, "relation": 0.25}
    assert report.random_overall is None  # the paper's table has no random number for counts and times
    assert report.tasks["relative_direction"].chance_adjusted == pytest.approx(-1 / 3)


def test_human_row_is_the_mean_of_reviewers_per_item() -> None:
    human = {"skm-000001": ["yes", "no"], "skm-000002": ["no"], "skm-000003": ["yes"], "skm-000004": ["no"],
             "skm-000005": ["10"], "skm-000006": ["0:04"], "skm-000007": ["east", "east"]}  # fmt: skip
    report = score(ITEMS, _preds({}), human=human)
    assert report.tasks["target_visibility"].human == pytest.approx((0.5 + 1 + 1 + 1) / 4)
    assert report.human_overall == pytest.approx((0.875 + 1 + 1 + 1) / 4)


def test_unreadable_duplicate_and_unknown_answers_are_reported() -> None:
    records = [{"id": "skm-000001", "answer": "maybe"}, {"id": "skm-000001", "answer": "yes"},
               {"id": "skm-999999", "answer": "yes"}]  # fmt: skip
    report = score(ITEMS, predictions_by_id(records, IDS))
    assert [(log.id, log.rule) for log in report.unparseable] == [("skm-000001", "no yes or no found")]
    assert report.tasks["target_visibility"].score == 0.0  # the first answer counts, and it is unreadable
    assert report.duplicates == ["skm-000001"] and report.unknown == ["skm-999999"]


def test_task_se_is_clustered_by_scene() -> None:
    # given ten yes/no items in five scenes, both right in s1 and s2, both wrong in s3, one of two in s4, s5
    items = [_item(100 + k, "target_visibility", "perception", "yes", YN, f"s{k // 2 + 1}") for k in range(10)]
    right = [True, True, True, True, False, False, True, False, True, False]
    records = [{"id": i["id"], "answer": "yes" if r else "no"} for i, r in zip(items, right, strict=True)]
    preds = predictions_by_id(records, [i["id"] for i in items])
    row = score(items, preds).tasks["target_visibility"]
    # mean 0.6; scene sums of (x - 0.6) / 10: 0.08, 0.08, -0.12, -0.02, -0.02; times G / (G - 1) = 5/4
    assert row.score == pytest.approx(0.6) and row.scenes == 5
    assert row.se == pytest.approx(math.sqrt(5 / 4 * (2 * 0.08**2 + 0.12**2 + 2 * 0.02**2)), rel=1e-9)
    assert row.se_note == ""


def test_too_few_scenes_give_no_se_and_the_report_says_why() -> None:
    # given the visibility items from two scenes: a sandwich over 2 clusters is no error bar
    report = score(ITEMS, _preds({"skm-000001": "yes", "skm-000002": "no", "skm-000003": "no", "skm-000004": "yes"}))
    row = report.tasks["target_visibility"]
    assert (row.se, row.scenes, row.se_note) == (None, 2, "too few scenes (2) for an SE")
    assert (report.overall_se, report.scenes) == (None, 3)
    assert report.overall_se_note == "too few scenes (3) for an SE"


def test_circular_accuracy_needs_every_rotation_right() -> None:
    base = ITEMS[6]
    rotated = [
        {
            **base,
            "id": f"{base['id']}#r{k}",
            "circular_of": base["id"],
            "options": base["options"][k:] + base["options"][:k],
        }
        for k in (1, 2, 3)
    ]
    ids = IDS + [r["id"] for r in rotated]

    def preds(answer: str) -> object:
        return predictions_by_id([{"id": i, "answer": answer} for i in ["skm-000007", *ids[-3:]]], ids)

    assert score(ITEMS, preds("east"), variants=rotated).tasks["relative_direction"].circular == 1.0
    # answering "B" every time is right once (the original order) and wrong in the rotations
    report = score(ITEMS, preds("B"), variants=rotated)
    assert report.tasks["relative_direction"].score == 1.0
    assert report.tasks["relative_direction"].circular == 0.0


def test_circular_is_not_scored_without_rotated_predictions_and_keeps_numbers_as_they_are() -> None:
    base = ITEMS[6]
    rotated = [
        {
            **base,
            "id": f"{base['id']}#r1",
            "circular_of": base["id"],
            "options": base["options"][1:] + base["options"][:1],
        }
    ]
    ids = [*IDS, rotated[0]["id"]]
    only_originals = predictions_by_id(
        [{"id": "skm-000007", "answer": "east"}, {"id": "skm-000005", "answer": "10"}], ids
    )
    report = score(ITEMS, only_originals, variants=rotated)
    # none of the rotations was predicted: not scored (None), which is not 0 %
    assert {row.circular for row in report.tasks.values()} == {None} and report.circular_overall is None
    # with the rotation predicted: scored on every task; a number has one ordering and keeps its score
    both = predictions_by_id([*({"id": i, "answer": "east"} for i in ("skm-000007", "skm-000007#r1")),
                              {"id": "skm-000005", "answer": "10"}], ids)  # fmt: skip
    report = score(ITEMS, both, variants=rotated)
    assert report.tasks["relative_direction"].circular == 1.0 and report.tasks["zone_counting"].circular == 1.0
    assert report.tasks["target_visibility"].circular == 0.0  # not answered at all


def test_choice_bias_of_predictions_and_of_the_key() -> None:
    report = score(ITEMS, _preds(dict.fromkeys(IDS[:4], "yes")))
    assert report.bias["2-option"]["p_mode"] == 1.0
    assert report.key_bias["2-option"] == pytest.approx({"entropy": 1.0, "p_mode": 0.5, "kl_uniform": 0.0})


def test_paired_comparison() -> None:
    a = _preds({"skm-000001": "yes", "skm-000002": "yes", "skm-000003": "yes", "skm-000004": "yes"})
    b = _preds({"skm-000001": "yes", "skm-000002": "no", "skm-000003": "yes", "skm-000004": "no"})
    result = compare(ITEMS, a, b)
    # b gains 0.5 on visibility, nothing elsewhere: +0.5 / 4 tasks
    assert result.tasks["target_visibility"] == 0.5
    assert result.difference == pytest.approx(0.125)
    # three scenes: no SE, so no z or p either, and the note says why
    assert (result.se, result.z, result.p_value) == (None, None, None)
    assert result.se_note == "too few scenes (3) for an SE"
    same = compare(ITEMS, a, a)
    assert (same.difference, same.p_value) == (0.0, None)


def test_loading_jsonl_and_tsv() -> None:
    assert load_jsonl(['{"id": "a", "answer": 1}', "", '{"id": "b", "answer": 2}'], "preds") == [
        {"id": "a", "answer": 1},
        {"id": "b", "answer": 2},
    ]
    with pytest.raises(PredictionError, match=r"^preds line 3: not JSON"):
        load_jsonl(['{"id": "a"}', "", "{oops"], "preds")
    with pytest.raises(PredictionError, match=r"^preds line 1: expected an object$"):
        load_jsonl(["[1, 2]"], "preds")
    assert load_tsv("index\tprediction\nskm-000001\tB\n") == [{"id": "skm-000001", "answer": "B"}]
    with pytest.raises(PredictionError, match="TSV header needs an id column"):
        load_tsv("question\tanswer\nx\ty\n")
    with pytest.raises(PredictionError, match=r"^prediction 2: needs 'id' and 'answer'$"):
        predictions_by_id([{"id": "a", "answer": "yes"}, {"id": "b"}], ["a"])
