"""Blind review: answer first, then see the key, then decide with reasons."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotator.compiling import lifecycle
from annotator.exceptions import Conflict
from annotator.models import Item, Mark
from review.models import Review
from review.reviewing.reasons import REASONS

REQUIRED_APPROVALS = 2


def answers_match(item: Item, answer: str) -> bool:
    given, key = answer.strip().lower(), item.answer.strip().lower()
    if item.answer_format in (Item.AnswerFormat.NUMBER, Item.AnswerFormat.TIMESTAMP):
        try:
            return abs(float(given) - float(key)) <= (1.0 if item.answer_format == "timestamp" else 0.0)
        except ValueError:
            return False
    return given == key


@transaction.atomic
def review_start(*, item: Item, reviewer: Any, blind_answer: str) -> Review:
    """Record the reviewer's blind answer. Only after this does the reviewer see the key."""
    item = Item.objects.select_for_update().get(id=item.id)
    if item.state != Item.State.IN_REVIEW:
        raise Conflict(f"the item is {item.state.replace('_', ' ')}, not in review")
    if item.author_id == reviewer.id:
        raise PermissionDenied("you cannot review an item you wrote")
    answer = blind_answer.strip()
    if not answer:
        raise ValidationError({"blind_answer": "answer the question before seeing the key"})
    if item.options and answer.lower() not in [str(o).lower() for o in item.options]:
        raise ValidationError({"blind_answer": f"choose one of: {', '.join(map(str, item.options))}"})
    try:
        with transaction.atomic():
            return Review.objects.create(
                item=item, reviewer=reviewer, blind_answer=answer, blind_correct=answers_match(item, answer)
            )
    except IntegrityError:
        raise Conflict("you have already reviewed this item") from None


@transaction.atomic
def review_decide(
    *,
    review: Review,
    reviewer: Any,
    decision: str,
    reasons: list[str],
    comment: str = "",
    anchor_mark_id: int | None = None,
) -> Review:
    """Approve or reject. Any rejection sends the item back to its author; enough approvals
    (and none against) approve it."""
    if review.reviewer_id != reviewer.id:
        raise PermissionDenied("this is not your review")
    review = Review.objects.select_for_update().get(id=review.id)
    item = Item.objects.select_for_update().get(id=review.item_id)
    if review.decision != Review.Decision.PENDING:
        raise Conflict("this review is already decided")
    if item.state != Item.State.IN_REVIEW:
        raise Conflict(f"the item is {item.state.replace('_', ' ')}, not in review")
    _validate_decision(decision, reasons, comment, anchor_mark_id, item)
    review.decision, review.reasons, review.comment = decision, reasons, comment.strip()
    review.anchor_mark_id, review.decided_at = anchor_mark_id, timezone.now()
    review.save()
    _settle_item(item)
    return review


def _validate_decision(decision: str, reasons: list[str], comment: str, anchor_mark_id: int | None, item: Item) -> None:
    if decision not in (Review.Decision.APPROVE, Review.Decision.REJECT):
        raise ValidationError({"decision": "approve or reject"})
    unknown = [r for r in reasons if r not in REASONS]
    if unknown:
        raise ValidationError({"reasons": f"unknown reason(s): {', '.join(unknown)}"})
    if decision == Review.Decision.REJECT and not reasons:
        raise ValidationError({"reasons": "a rejection needs at least one reason"})
    if decision == Review.Decision.APPROVE and reasons:
        raise ValidationError({"reasons": "an approval carries no rejection reasons"})
    if anchor_mark_id is not None and not Mark.objects.filter(id=anchor_mark_id, items=item).exists():
        raise ValidationError({"anchor_mark": "the comment can only be anchored on one of the item's marks"})


def _settle_item(item: Item) -> None:
    """Any rejection sends the item back; enough approvals (and none against) approve it. The
    lifecycle makes the move (and refuses to approve an item whose marks changed)."""
    decisions = list(item.reviews.values_list("decision", flat=True))
    if Review.Decision.REJECT in decisions:
        lifecycle.item_reject(item=item)
    elif decisions.count(Review.Decision.APPROVE) >= REQUIRED_APPROVALS:
        lifecycle.item_approve(item=item)
