"""review.dashboards.measures and stats over reviews made through the services: agreement per task
and overall, Cohen's kappa per pair, the human baseline with its scene-clustered interval, and
gold accuracy with its flag."""

from __future__ import annotations

import pytest

from review.dashboards import measures, stats
from review.quality import agreement
from review.reviewing.gold import gold_mark
from review.reviewing.policy import policy_get
from review.reviewing.services import review_decide, review_start
from tests.factories import AnnotatorFactory, ReviewerFactory
from tests.review.flow import vote

pytestmark = pytest.mark.django_db


def test_agreement_on_decisions_and_blind_answers(submit, reviewer, second_reviewer) -> None:
    # given four rounds between the same two reviewers
    plan = [("yes", "approve", "yes", "approve"), ("yes", "approve", "no", "approve"),
            ("no", "reject", "no", "reject"), ("yes", "approve", "yes", "reject")]  # fmt: skip
    for a1, d1, a2, d2 in plan:
        item = submit()
        vote(item, reviewer, a1, d1, ("wrong_key",) if d1 == "reject" else ())
        vote(item, second_reviewer, a2, d2, ("wrong_key",) if d2 == "reject" else ())

    report = measures.agreement_report()
    [task, overall] = report["tasks"]
    assert task["name"] == "Target Visibility" and overall["name"] == "Overall"
    decisions = [[d1, d2] for _, d1, _, d2 in plan]
    answers = [[a1, a2] for a1, _, a2, _ in plan]
    assert overall["decisions"]["rounds"] == 4
    assert overall["decisions"]["percent"] == pytest.approx(0.75)
    assert overall["decisions"]["fleiss"] == pytest.approx(agreement.fleiss_kappa(decisions))
    assert overall["answers"]["alpha"] == pytest.approx(agreement.krippendorff_alpha(answers))
    [pair] = report["pairs"]
    assert pair["pair"] == "rev1 · rev2" and pair["rounds"] == 4
    assert pair["decisions"] == pytest.approx(agreement.cohen_kappa([p[1] for p in plan], [p[3] for p in plan]))


def test_human_baseline_scores_blind_answers_on_approved_items_by_scene(submit, reviewer, second_reviewer) -> None:
    # given three approved items (each its own scene), one blind answer in six wrong
    for second_answer in ("yes", "yes", "no"):
        item = submit()
        vote(item, reviewer, "yes", "approve")
        vote(item, second_reviewer, second_answer, "approve")
        if second_answer == "no":
            from review.reviewing.adjudication import item_adjudicate

            item_adjudicate(item=item, adjudicator=AnnotatorFactory.create(roles=["admin"]), decision="approve",
                            reason="key holds")  # fmt: skip

    report = measures.baseline_report()
    task = report["tasks"][0]
    assert (task["name"], task["n"]) == ("Target Visibility", 3)
    assert task["value"] == pytest.approx(5 / 6)
    # three scenes are too few for a scene-clustered interval: none, and the table says so
    assert (task["low"], task["high"], task["note"]) == (None, None, "too few scenes (3) for an interval")
    assert [d["name"] for d in report["dimensions"]] == ["Perception", "Overall"]
    assert report["answers"] == 6


def test_gold_accuracy_is_tracked_and_a_weak_reviewer_flagged(submit, reviewer, second_reviewer, admin) -> None:
    # given a policy that flags below 60 % after two gold answers, and two gold items
    policy = policy_get()
    policy.gold_rate, policy.gold_min_answers, policy.gold_min_accuracy = 0.5, 2, 0.6
    policy.save()
    golds = []
    for _ in range(2):
        item = submit(author=AnnotatorFactory())
        vote(item, reviewer, "yes", "approve")
        vote(item, second_reviewer, "yes", "approve")
        gold_mark(item=item, admin=admin)
        golds.append(item)
    weak = ReviewerFactory(username="weak")
    policy.reviewers_per_item = 3  # everyone reviews the real items: the newcomer gets both
    policy.save()
    for _ in range(2):  # two real items bring two gold checks (rate 50 %)
        submit()

    # when the reviewer answers both gold checks wrong
    for gold in golds:
        check = review_start(item=gold, reviewer=weak, blind_answer="no")
        review_decide(review=check, reviewer=weak, decision="reject", reasons=["wrong_key"])

    # then their gold accuracy is 0 of 2, flagged, and both gold items count as challenged
    [row] = stats.gold_accuracy(policy=policy)
    assert (row.username, row.answered, row.correct, row.accuracy, row.flagged, row.challenged) == (
        "weak", 2, 0, 0.0, True, 2,
    )  # fmt: skip
    assert stats.reviewer_summary(reviewer=weak, policy=policy)["gold"].flagged


def test_blind_answers_that_read_as_one_number_agree() -> None:
    # numbers are read as decimals: "12", "12.0" and "twelve" are one category for agreement
    labels = {measures._answer_label(a, "number", []) for a in ("12", "12.0", "twelve", " 12 ")}
    assert labels == {"12"}
