"""Blind review: answer first, then see the key, then decide with reasons. When every reviewer of
a revision has decided, the item settles by these rules (`settle_outcome`):

- every reviewer approved and every blind answer matches the key -> approved;
- every reviewer rejected -> rejected, back to the author with their reasons;
- otherwise (they disagree, or an approving reviewer's blind answer contradicts the key) ->
  adjudication, where an adjudicator's decision is final.
The item lifecycle makes each move; gold checks are recorded and never move their item."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.http import Http404
from django.utils import timezone

from annotator.compiling import lifecycle
from annotator.exceptions import Conflict
from annotator.hotpath.steps import assignment_locked, assignment_of_step, review_locked, reviews_of_round
from annotator.models import Item
from review.models import Review, ReviewAssignment
from review.reviewing.anchors import anchors_clean
from review.reviewing.judging import blind_answer_clean, blind_score
from review.reviewing.policy import policy_for_item
from review.reviewing.reasons import reason_labels, reasons_clean

D = Review.Decision
# Longer than any honest look at one item: a page left open overnight is not a review time.
MAX_SECONDS = 6 * 3600.0


def _seconds(given: float | None, since: Any, field: str) -> float | None:
    """The page's measured seconds, else the server's clock since `since` (capped)."""
    if given is not None:
        if not 0 <= given <= MAX_SECONDS:
            raise ValidationError({field: f"a duration between 0 and {MAX_SECONDS:.0f} s"})
        return round(float(given), 3)
    if since is None:
        return None
    return round(min((timezone.now() - since).total_seconds(), MAX_SECONDS), 3)


@transaction.atomic
def review_start(*, item: Item | int, reviewer: Any, blind_answer: str, answer_seconds: float | None = None) -> Review:
    """Record the reviewer's blind answer to the item in their queue, scored against the key.
    Only after this does the reviewer see the key. Given by id (an API's path), the item is found
    as the reviewer's queue finds it (review.reviewing.selectors.review_item_get: of their projects,
    not theirs) in the same read that locks it, 404 for any other."""
    # The assignment on the item's current revision and the item, locked, in one round trip (two
    # on PostgreSQL before: the blind answer's 9 queries were a third of the review steps'); by hand
    # (annotator.hotpath.steps: the ORM's querysets are in the docstrings there).
    if isinstance(item, int):
        assignment = assignment_of_step(reviewer=reviewer, item_id=item, lock=True)
        if assignment is None:
            raise Http404("no such item in your queue")
    else:
        if item.author_id == reviewer.id:  # an item's author never changes: no need to read it locked
            raise PermissionDenied("you cannot review an item you wrote")
        assignment = assignment_locked(reviewer_id=reviewer.pk, item_id=item.id)
        if assignment is None:
            raise PermissionDenied("this item is not in your review queue")
    locked: Item = assignment.item
    expected = Item.State.APPROVED if assignment.gold else Item.State.IN_REVIEW
    if locked.state != expected:
        raise Conflict(f"the item is {locked.state.replace('_', ' ')}, not in review")
    answer = blind_answer_clean(item=locked, answer=blind_answer)
    score = blind_score(item=locked, answer=answer)
    seconds = _seconds(answer_seconds, assignment.opened_at, "answer_seconds")
    try:
        # No savepoint of its own: a second answer's IntegrityError leaves this function as a
        # Conflict, and this function's transaction (or its savepoint, inside a caller's) rolls back
        # with it. The SAVEPOINT and RELEASE were two of a blind answer's eight round trips.
        return Review.objects.create(
            item=locked,
            revision=locked.revision,
            reviewer=reviewer,
            gold=assignment.gold,
            blind_answer=answer,
            blind_score=score,
            blind_correct=score >= 1.0,
            answer_seconds=seconds,
        )
    except IntegrityError:
        raise Conflict("you have already reviewed this item") from None


# What a decision writes of its review (the rest was written by its blind answer).
_DECIDED_FIELDS = ("decision", "reasons", "comment", "anchor_mark", "anchor_time_s", "decided_at", "decision_seconds")


def _review_locked(*, review: Review | int, reviewer: Any) -> Review:
    """The review and its item, both locked, in one round trip, with the scene and video for the
    anchors. Given by id (an API's path), it is read through the reviewer's own reviews on items of
    their projects, so the lock is also the scope check (a scoped read before it was one more query
    of a decision's, on every decision); 404 for any other."""
    if isinstance(review, Review):
        if review.reviewer_id != reviewer.id:
            raise PermissionDenied("this is not your review")
        found = Review.objects.filter(id=review.id).select_related("item__scene__video")
        locked = found.select_for_update(of=("self", "item")).first()
    else:
        # By hand (annotator.hotpath.steps.review_locked: reviews_of_reviewer's queryset, locked, in
        # its docstring): building and compiling it was a sixth of a decision's CPU.
        locked = review_locked(reviewer=reviewer, review_id=review)
    if locked is None:
        raise Http404("no such review of yours")
    return locked


@transaction.atomic
def review_decide(
    *,
    review: Review | int,
    reviewer: Any,
    decision: str,
    reasons: list[str],
    comment: str = "",
    anchor_mark_id: int | None = None,
    anchor_time_s: float | None = None,
    decision_seconds: float | None = None,
) -> Review:
    """Approve or reject, with reasons for a rejection and a comment anchored on a mark or a video
    time. The assignment is done; once every reviewer of the revision has decided, the item
    settles (see the module's rules). `review`: the review, or its id (`_review_locked`)."""
    review = _review_locked(review=review, reviewer=reviewer)
    item = review.item
    if review.decision != D.PENDING:
        raise Conflict("this review is already decided")
    if not review.gold and (item.state != Item.State.IN_REVIEW or item.revision != review.revision):
        raise Conflict(f"the item is {item.state.replace('_', ' ')}, not in review")
    if decision not in (D.APPROVE, D.REJECT):
        raise ValidationError({"decision": "approve or reject"})
    reasons = reasons_clean(reasons)
    if decision == D.REJECT and not reasons:
        raise ValidationError({"reasons": "a rejection needs at least one reason"})
    if decision == D.APPROVE and reasons:
        raise ValidationError({"reasons": "an approval carries no rejection reasons"})
    anchor_mark_id, anchor_time_s = anchors_clean(item=item, mark_id=anchor_mark_id, time_s=anchor_time_s)
    now = timezone.now()
    review.decision, review.reasons, review.comment = decision, reasons, comment.strip()
    review.anchor_mark_id, review.anchor_time_s, review.decided_at = anchor_mark_id, anchor_time_s, now
    review.decision_seconds = _seconds(decision_seconds, review.created_at, "decision_seconds")
    review.save(update_fields=_DECIDED_FIELDS)
    # The answer shows the key from the item locked here (and settled below), not read again.
    review.item = item
    ReviewAssignment.objects.filter(item=item, revision=review.revision, reviewer=reviewer).update(done_at=now)
    if not review.gold:
        _settle(item=item, actor=reviewer)
    return review


@dataclass(frozen=True)
class Vote:
    """What settling needs of one decided review."""

    decision: str
    blind_correct: bool
    blind_answer: str
    reasons: tuple[str, ...] = ()


def settle_outcome(
    votes: list[Vote], *, key: str, labels: Callable[[], dict[str, str]] | None = None
) -> tuple[str, str]:
    """(lifecycle action, reason in words) for a revision whose reviewers have all decided. `labels`
    gives each rejection reason's label; it is asked only when the reasons are named (a rejection)."""
    approvals = [v for v in votes if v.decision == D.APPROVE]
    if len(approvals) == len(votes):
        wrong = [v for v in approvals if not v.blind_correct]
        if not wrong:
            return "approve", f"{len(votes)} reviewers approved and every blind answer matched the key"
        answers = ", ".join(sorted({v.blind_answer for v in wrong}))
        return "escalate", f"an approving reviewer's blind answer ({answers}) contradicts the key ({key})"
    if not approvals:
        names = labels() if labels is not None else {}
        named = sorted({names.get(r, r) for v in votes for r in v.reasons})
        return "reject", f"{len(votes)} reviewers rejected: {'; '.join(named)}"
    return "escalate", f"reviewers disagree: {len(approvals)} approved, {len(votes) - len(approvals)} rejected"


def _settle(*, item: Item, actor: Any) -> None:
    """Move the item once every reviewer of its revision has decided (at least the policy's
    number): the reviewer whose decision completed the set is the transition's actor."""
    # The revision's reviews, each with the number of reviewers it was assigned to, in one query
    # (a count after them was one more of every decision's), written by hand: the ORM's queryset
    # is in annotator.hotpath.steps.reviews_of_round, whose docstring says what it saved. The
    # policy is read only once every assigned reviewer has decided, which the first of two
    # decisions never needs.
    reviews = reviews_of_round(item_id=item.pk, revision=item.revision)
    if not reviews or any(r.decision == D.PENDING for r in reviews):  # another reviewer is still on it
        return
    if len(reviews) < (reviews[0].assigned or 0):  # type: ignore[attr-defined]
        return
    if len(reviews) < policy_for_item(item).reviewers_per_item:
        return
    votes = [Vote(r.decision, r.blind_correct, r.blind_answer, tuple(r.reasons)) for r in reviews]
    action, reason = settle_outcome(votes, key=item.answer, labels=reason_labels)
    move = {"approve": lifecycle.item_approve, "reject": lifecycle.item_reject, "escalate": lifecycle.item_escalate}
    move[action](item=item, actor=actor, reason=reason)


@transaction.atomic
def review_opened(*, item: Item, reviewer: Any) -> None:
    """The reviewer opened the blind page: starts the server's clock for the answer time (once)."""
    ReviewAssignment.objects.filter(
        item=item, revision=item.revision, reviewer=reviewer, opened_at__isnull=True
    ).update(opened_at=timezone.now())
