"""review.reviewing.services: the blind answer first (scored by the benchmark's rules), then a
decision; once every reviewer of a revision has decided the item settles by the rules."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from annotator.exceptions import Conflict
from annotator.models import Item
from review.models import ItemEvent, Review, ReviewAssignment
from review.reviewing.selectors import feedback_for_items
from review.reviewing.services import Vote, review_decide, review_start, settle_outcome
from tests.factories import MarkFactory, ReviewerFactory
from tests.review.flow import vote

pytestmark = pytest.mark.django_db

S = Item.State
OFF_ITEM = "the comment can only be anchored on one of the item's marks"


def _state(item: Item) -> str:
    return Item.objects.get(id=item.id).state


@pytest.mark.parametrize(
    ("answer", "stored", "correct"), [("yes", "yes", True), (" YES ", "yes", True), ("no", "no", False)]
)
def test_blind_answer_is_recorded_and_scored(item, reviewer, answer: str, stored: str, correct: bool) -> None:
    # given an item in review whose key is "yes" / when its reviewer answers blind
    review = review_start(item=item, reviewer=reviewer, blind_answer=answer, answer_seconds=12.5)

    # then the answer (as the option reads), its score, the time and a pending decision are stored
    row = Review.objects.get(id=review.id)
    assert (row.blind_answer, row.blind_correct, row.blind_score) == (stored, correct, 1.0 if correct else 0.0)
    assert (row.decision, row.revision, row.answer_seconds, row.gold) == ("pending", 1, 12.5, False)
    assert _state(item) == S.IN_REVIEW


def test_blind_answer_must_be_an_option_and_not_empty(item, reviewer) -> None:
    with pytest.raises(ValidationError) as err:
        review_start(item=item, reviewer=reviewer, blind_answer="maybe")
    assert err.value.message_dict == {"blind_answer": ["choose one of: yes, no"]}
    with pytest.raises(ValidationError) as err:
        review_start(item=item, reviewer=reviewer, blind_answer="  ")
    assert list(err.value.message_dict) == ["blind_answer"]
    with pytest.raises(ValidationError) as err:
        review_start(item=item, reviewer=reviewer, blind_answer="yes", answer_seconds=-1)
    assert list(err.value.message_dict) == ["answer_seconds"]
    assert Review.objects.count() == 0


@pytest.mark.parametrize(
    ("fmt", "key", "given", "score"),
    [
        (Item.AnswerFormat.NUMBER, "12", "12.0", 1.0),
        (Item.AnswerFormat.NUMBER, "12", "twelve", 1.0),
        (Item.AnswerFormat.NUMBER, "10", "11", 0.8),  # MRA: 0.1 < 1-θ for θ in 0.50..0.85, 8 of 10
        (Item.AnswerFormat.NUMBER, "12", "30", 0.0),
        (Item.AnswerFormat.TIMESTAMP, "4.5", "5.5", 1.0),  # ACC@1s
        (Item.AnswerFormat.TIMESTAMP, "64.0", "1:04", 1.0),
        (Item.AnswerFormat.TIMESTAMP, "4.5", "5.6", 0.0),
    ],
)
def test_numbers_and_times_are_judged_by_the_benchmark_metrics(item, reviewer, fmt, key, given, score) -> None:  # type: ignore[no-untyped-def]
    Item.objects.filter(id=item.id).update(options=[], answer=key, answer_format=fmt)
    item.refresh_from_db()
    review = review_start(item=item, reviewer=reviewer, blind_answer=given)
    assert (review.blind_score, review.blind_correct) == (pytest.approx(score), score == 1.0)


def test_an_unreadable_number_is_refused_not_scored(item, reviewer) -> None:
    Item.objects.filter(id=item.id).update(options=[], answer="4.5", answer_format=Item.AnswerFormat.TIMESTAMP)
    item.refresh_from_db()
    with pytest.raises(ValidationError) as err:
        review_start(item=item, reviewer=reviewer, blind_answer="soon")
    assert err.value.message_dict == {"blind_answer": ["give a time in seconds (or mm:ss)"]}


def test_own_items_and_items_not_assigned_cannot_be_reviewed(item, annotator) -> None:
    # the author (even with the reviewer role) and a reviewer without an assignment are refused
    annotator.groups.add(*ReviewerFactory().groups.all())
    outsider = ReviewerFactory(username="rev3")
    with pytest.raises(PermissionDenied, match="an item you wrote"):
        review_start(item=item, reviewer=annotator, blind_answer="yes")
    with pytest.raises(PermissionDenied, match="not in your review queue"):
        review_start(item=item, reviewer=outsider, blind_answer="yes")
    assert Review.objects.count() == 0


def test_double_answer_is_a_conflict(item, reviewer) -> None:
    review_start(item=item, reviewer=reviewer, blind_answer="yes")
    with pytest.raises(Conflict, match="already reviewed"):
        review_start(item=item, reviewer=reviewer, blind_answer="no")
    assert list(Review.objects.values_list("blind_answer", flat=True)) == ["yes"]


@pytest.mark.django_db(transaction=True)
def test_a_double_answer_outside_any_transaction_rolls_back_and_leaves_the_connection_usable(item, reviewer) -> None:
    # given an answer made as an API request makes it (the service's own transaction, no caller's)
    from django.db import connection

    review_start(item=item, reviewer=reviewer, blind_answer="yes")
    # when the same reviewer answers again, the unique review refuses it as a conflict
    with pytest.raises(Conflict, match="already reviewed"):
        review_start(item=item, reviewer=reviewer, blind_answer="no")
    # then nothing of the second is kept and the connection answers the next query
    assert not connection.in_atomic_block and not connection.needs_rollback
    assert list(Review.objects.values_list("blind_answer", flat=True)) == ["yes"]


def test_one_decision_waits_for_the_other_reviewers(item, reviewer, second_reviewer) -> None:
    vote(item, reviewer, "yes", "reject", ("wrong_key",))
    assert _state(item) == S.IN_REVIEW
    assert ReviewAssignment.objects.get(item=item, reviewer=reviewer).done_at is not None
    assert ReviewAssignment.objects.get(item=item, reviewer=second_reviewer).done_at is None


def test_all_approve_and_every_blind_answer_matches_the_key_approves(item, reviewer, second_reviewer) -> None:
    vote(item, reviewer, "yes", "approve")
    vote(item, second_reviewer, "yes", "approve", comment="  fine ")
    assert _state(item) == S.APPROVED
    assert list(Review.objects.order_by("id").values_list("decision", "comment")) == [
        ("approve", ""),
        ("approve", "fine"),
    ]
    event = ItemEvent.objects.filter(item_id=item.id).last()
    assert (event.action, event.actor, event.reason) == (
        "approve",
        second_reviewer,
        "2 reviewers approved and every blind answer matched the key",
    )


def test_a_blind_answer_contradicting_the_key_of_an_approving_reviewer_goes_to_adjudication(
    item, reviewer, second_reviewer
) -> None:
    vote(item, reviewer, "yes", "approve")
    vote(item, second_reviewer, "no", "approve")
    assert _state(item) == S.IN_ADJUDICATION
    assert ItemEvent.objects.filter(item_id=item.id).last().reason == (
        "an approving reviewer's blind answer (no) contradicts the key (yes)"
    )


def test_reviewers_who_disagree_send_the_item_to_adjudication(item, reviewer, second_reviewer) -> None:
    vote(item, reviewer, "yes", "approve")
    vote(item, second_reviewer, "yes", "reject", ("mark_misplaced",))
    assert _state(item) == S.IN_ADJUDICATION
    assert ItemEvent.objects.filter(item_id=item.id).last().reason == "reviewers disagree: 1 approved, 1 rejected"
    assert feedback_for_items(items=[item]) == []  # not the author's yet


def test_all_reject_sends_the_item_back_with_reasons_on_the_marks(item, reviewer, second_reviewer) -> None:
    # given a mark and a rejection anchored on it and on a video time
    mark = item.marks.get()
    vote(item, reviewer, "no", "reject", ("evidence_not_visible", "mark_misplaced"), comment="not in view",
         anchor_mark_id=mark.id, anchor_time_s=1.25)  # fmt: skip
    vote(item, second_reviewer, "yes", "reject", ("mark_misplaced",))

    # then it is rejected; the log says why; the author sees reasons in words, comment and anchors
    assert _state(item) == S.REJECTED
    assert ItemEvent.objects.filter(item_id=item.id).last().reason == (
        "2 reviewers rejected: Evidence not visible in the video; Mark misplaced"
    )
    first, second = feedback_for_items(items=[item])
    assert (first["comment"], first["anchor_mark"], first["anchor_time_s"], first["by"]) == (
        "not in view",
        mark.id,
        1.25,
        "reviewer",
    )
    assert first["reasons"] == ["Mark misplaced", "Evidence not visible in the video"]  # taxonomy order
    assert second["reasons"] == ["Mark misplaced"]


@pytest.mark.parametrize(
    ("decision", "reasons", "anchor", "time_s", "errors"),
    [
        ("reject", [], None, None, {"reasons": ["a rejection needs at least one reason"]}),
        ("reject", ["bad_vibes"], None, None, {"reasons": ["unknown reason(s): bad_vibes"]}),
        ("approve", ["ambiguity"], None, None, {"reasons": ["an approval carries no rejection reasons"]}),
        ("maybe", [], None, None, {"decision": ["approve or reject"]}),
        ("reject", ["ambiguity"], "other", None, {"anchor_mark": [OFF_ITEM]}),
        ("reject", ["ambiguity"], None, 99.0, {"anchor_time_s": ["the video time must be between 0 and 2.00 s"]}),
    ],
)  # fmt: skip
def test_bad_decisions_are_refused(item, reviewer, decision, reasons, anchor, time_s, errors) -> None:  # type: ignore[no-untyped-def]
    review = review_start(item=item, reviewer=reviewer, blind_answer="yes")
    anchor_id = MarkFactory().id if anchor else None
    with pytest.raises(ValidationError) as err:
        review_decide(
            review=review, reviewer=reviewer, decision=decision, reasons=reasons, anchor_mark_id=anchor_id,
            anchor_time_s=time_s,
        )  # fmt: skip
    assert err.value.message_dict == errors
    assert Review.objects.get(id=review.id).decision == "pending"
    assert _state(item) == S.IN_REVIEW


def test_a_retired_reason_cannot_be_chosen(item, reviewer) -> None:
    from review.models import RejectionReason

    RejectionReason.objects.filter(code="triviality").update(active=False)
    review = review_start(item=item, reviewer=reviewer, blind_answer="yes")
    with pytest.raises(ValidationError, match="unknown reason"):
        review_decide(review=review, reviewer=reviewer, decision="reject", reasons=["triviality"])


def test_a_review_is_decided_once_by_its_reviewer(item, reviewer, second_reviewer) -> None:
    review = review_start(item=item, reviewer=reviewer, blind_answer="yes")
    with pytest.raises(PermissionDenied):
        review_decide(review=review, reviewer=second_reviewer, decision="approve", reasons=[])
    review_decide(review=review, reviewer=reviewer, decision="approve", reasons=[], decision_seconds=3.0)
    with pytest.raises(Conflict, match="already decided"):
        review_decide(review=review, reviewer=reviewer, decision="reject", reasons=["ambiguity"])
    row = Review.objects.get(id=review.id)
    assert (row.decision, row.decision_seconds) == ("approve", 3.0)


@pytest.mark.parametrize("state", [S.APPROVED, S.REJECTED, S.IN_ADJUDICATION])
def test_only_items_in_review_are_reviewed(item, reviewer, state: str) -> None:
    Item.objects.filter(id=item.id).update(state=state if state != S.APPROVED else S.IN_ADJUDICATION)
    Item.objects.filter(id=item.id).update(state=state)
    with pytest.raises(Conflict, match="not in review"):
        review_start(item=item, reviewer=reviewer, blind_answer="yes")


@pytest.mark.parametrize(
    ("votes", "action"),
    [
        ([("approve", True), ("approve", True)], "approve"),
        ([("approve", True), ("approve", True), ("approve", True)], "approve"),
        ([("approve", True), ("approve", False)], "escalate"),
        ([("approve", True), ("reject", True)], "escalate"),
        ([("reject", False), ("approve", True)], "escalate"),
        ([("reject", True), ("reject", False)], "reject"),
    ],
)
def test_settle_outcome_rules(votes: list[tuple[str, bool]], action: str) -> None:
    got, _ = settle_outcome([Vote(d, c, "yes" if c else "no") for d, c in votes], key="yes")
    assert got == action
