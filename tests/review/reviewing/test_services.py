"""review.reviewing.services: blind answer first, then a decision; items settle by the rules."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from annotator.exceptions import Conflict
from annotator.models import Item
from review.models import Review
from review.reviewing.selectors import feedback_for_items, review_queue
from review.reviewing.services import REQUIRED_APPROVALS, review_decide, review_start
from tests.factories import ItemFactory, MarkFactory, ReviewerFactory, ReviewFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def item(annotator) -> Item:  # type: ignore[no-untyped-def]
    mark = MarkFactory(author=annotator)
    return ItemFactory(scene=mark.scene, author=annotator, marks=[mark], state=Item.State.IN_REVIEW)


@pytest.mark.parametrize(("answer", "correct"), [("yes", True), (" YES ", True), ("no", False)])
def test_blind_answer_is_recorded_and_scored(item, reviewer, answer: str, correct: bool) -> None:
    # given an item in review whose key is "yes" / when a reviewer answers blind
    review = review_start(item=item, reviewer=reviewer, blind_answer=answer)

    # then the answer, its correctness and a pending decision are stored; the item is still in review
    row = Review.objects.get(id=review.id)
    assert (row.blind_answer, row.blind_correct, row.decision) == (answer.strip(), correct, "pending")
    assert Item.objects.get(id=item.id).state == Item.State.IN_REVIEW


def test_blind_answer_must_be_an_option(item, reviewer) -> None:
    with pytest.raises(ValidationError) as err:
        review_start(item=item, reviewer=reviewer, blind_answer="maybe")
    assert err.value.message_dict == {"blind_answer": ["choose one of: yes, no"]}
    with pytest.raises(ValidationError) as err:
        review_start(item=item, reviewer=reviewer, blind_answer="  ")
    assert list(err.value.message_dict) == ["blind_answer"]
    assert Review.objects.count() == 0


@pytest.mark.parametrize(
    ("fmt", "key", "given", "correct"),
    [
        (Item.AnswerFormat.NUMBER, "12", "12.0", True),
        (Item.AnswerFormat.NUMBER, "12", "13", False),
        (Item.AnswerFormat.TIMESTAMP, "4.5", "5.5", True),
        (Item.AnswerFormat.TIMESTAMP, "4.5", "5.6", False),
        (Item.AnswerFormat.TIMESTAMP, "4.5", "soon", False),
    ],
)
def test_blind_answers_to_numbers_and_times(annotator, reviewer, fmt: str, key: str, given: str, correct: bool) -> None:
    item = ItemFactory(
        author=annotator,
        state=Item.State.IN_REVIEW,
        options=[],
        answer=key,
        answer_format=fmt,
        task=Item.Task.ZONE_COUNTING,
    )
    assert review_start(item=item, reviewer=reviewer, blind_answer=given).blind_correct is correct


def test_own_item_cannot_be_reviewed(annotator) -> None:
    # given a user who is both annotator and reviewer and wrote the item
    item = ItemFactory(author=annotator, state=Item.State.IN_REVIEW)
    annotator.groups.add(*ReviewerFactory().groups.all())

    # then
    with pytest.raises(PermissionDenied):
        review_start(item=item, reviewer=annotator, blind_answer="yes")
    assert Review.objects.count() == 0
    assert list(review_queue(reviewer=annotator)) == []


def test_double_review_is_a_conflict(item, reviewer) -> None:
    review_start(item=item, reviewer=reviewer, blind_answer="yes")
    with pytest.raises(Conflict, match="already reviewed"):
        review_start(item=item, reviewer=reviewer, blind_answer="no")
    assert list(Review.objects.values_list("blind_answer", flat=True)) == ["yes"]


@pytest.mark.parametrize("state", [Item.State.DRAFT, Item.State.APPROVED, Item.State.REJECTED])
def test_only_items_in_review_are_reviewed(annotator, reviewer, state: str) -> None:
    item = ItemFactory(author=annotator, state=state)
    with pytest.raises(Conflict, match="not in review"):
        review_start(item=item, reviewer=reviewer, blind_answer="yes")


def test_two_approvals_approve(item, reviewer, second_reviewer) -> None:
    # given two blind answers
    first = review_start(item=item, reviewer=reviewer, blind_answer="yes")
    second = review_start(item=item, reviewer=second_reviewer, blind_answer="no")

    # when the first approves / then one approval is not enough
    review_decide(review=first, reviewer=reviewer, decision="approve", reasons=[])
    assert Item.objects.get(id=item.id).state == Item.State.IN_REVIEW
    assert REQUIRED_APPROVALS == 2

    # when the second approves / then the item is approved and both decisions are stored
    review_decide(review=second, reviewer=second_reviewer, decision="approve", reasons=[], comment="  fine ")
    assert Item.objects.get(id=item.id).state == Item.State.APPROVED
    rows = list(Review.objects.order_by("id").values_list("decision", "comment"))
    assert rows == [("approve", ""), ("approve", "fine")]
    assert all(r.decided_at is not None for r in Review.objects.all())


def test_any_rejection_rejects_with_reasons(item, reviewer, second_reviewer) -> None:
    # given one approval
    first = review_start(item=item, reviewer=reviewer, blind_answer="yes")
    review_decide(review=first, reviewer=reviewer, decision="approve", reasons=[])
    second = review_start(item=item, reviewer=second_reviewer, blind_answer="no")
    mark = item.marks.get()

    # when the second reviewer rejects with reasons and a comment on the mark
    review_decide(
        review=second,
        reviewer=second_reviewer,
        decision="reject",
        reasons=["evidence_mismatch", "mark_geometry"],
        comment="the pond is not in view",
        anchor_mark_id=mark.id,
    )

    # then the item is rejected and the annotator sees reasons in words, the comment and the mark
    assert Item.objects.get(id=item.id).state == Item.State.REJECTED
    row = Review.objects.get(id=second.id)
    assert (row.decision, row.reasons, row.anchor_mark_id) == (
        "reject",
        ["evidence_mismatch", "mark_geometry"],
        mark.id,
    )
    [feedback] = feedback_for_items(items=[item])
    assert feedback["comment"] == "the pond is not in view" and feedback["anchor_mark"] == mark.id
    assert feedback["reasons"][0].startswith("Visual evidence mismatch")


@pytest.mark.parametrize(
    ("decision", "reasons", "anchor", "errors"),
    [
        ("reject", [], None, {"reasons": ["a rejection needs at least one reason"]}),
        ("reject", ["bad_vibes"], None, {"reasons": ["unknown reason(s): bad_vibes"]}),
        ("approve", ["ambiguity"], None, {"reasons": ["an approval carries no rejection reasons"]}),
        ("maybe", [], None, {"decision": ["approve or reject"]}),
        (
            "reject",
            ["ambiguity"],
            "other",
            {"anchor_mark": ["the comment can only be anchored on one of the item's marks"]},
        ),
    ],
)
def test_bad_decisions_are_refused(
    item, reviewer, decision: str, reasons: list[str], anchor: str | None, errors: dict
) -> None:
    # given a blind answer
    review = review_start(item=item, reviewer=reviewer, blind_answer="yes")
    anchor_id = MarkFactory().id if anchor else None

    # when the decision is malformed / then nothing changes
    with pytest.raises(ValidationError) as err:
        review_decide(review=review, reviewer=reviewer, decision=decision, reasons=reasons, anchor_mark_id=anchor_id)
    assert err.value.message_dict == errors
    assert Review.objects.get(id=review.id).decision == "pending"
    assert Item.objects.get(id=item.id).state == Item.State.IN_REVIEW


def test_a_review_is_decided_once(item, reviewer) -> None:
    review = review_start(item=item, reviewer=reviewer, blind_answer="yes")
    review_decide(review=review, reviewer=reviewer, decision="approve", reasons=[])
    with pytest.raises(Conflict, match="already decided"):
        review_decide(review=review, reviewer=reviewer, decision="reject", reasons=["ambiguity"])
    assert Review.objects.get(id=review.id).decision == "approve"


def test_only_its_reviewer_decides(item, reviewer, second_reviewer) -> None:
    review = review_start(item=item, reviewer=reviewer, blind_answer="yes")
    with pytest.raises(PermissionDenied):
        review_decide(review=review, reviewer=second_reviewer, decision="approve", reasons=[])
    assert Review.objects.get(id=review.id).decision == "pending"


def test_pending_review_of_a_rejected_item_cannot_decide(item, reviewer, second_reviewer) -> None:
    # given two blind answers and a rejection by the first reviewer
    first = review_start(item=item, reviewer=reviewer, blind_answer="no")
    second = review_start(item=item, reviewer=second_reviewer, blind_answer="yes")
    review_decide(review=first, reviewer=reviewer, decision="reject", reasons=["wrong_answer"])

    # then the second decision is refused: the item is back with its author
    with pytest.raises(Conflict, match="the item is rejected, not in review"):
        review_decide(review=second, reviewer=second_reviewer, decision="approve", reasons=[])
    assert Item.objects.get(id=item.id).state == Item.State.REJECTED


def test_review_queue_hides_own_and_decided_items(annotator, reviewer) -> None:
    # given items in review: one decided by this reviewer, one only answered, one open; plus a draft
    decided = ReviewFactory(reviewer=reviewer, decision=Review.Decision.APPROVE).item
    answered = ReviewFactory(reviewer=reviewer).item
    open_item = ItemFactory(state=Item.State.IN_REVIEW)
    ItemFactory(state=Item.State.DRAFT)

    # then the queue lists what is left to decide, oldest first
    assert [i.id for i in review_queue(reviewer=reviewer)] == [answered.id, open_item.id]
    assert decided.id not in [i.id for i in review_queue(reviewer=reviewer)]
