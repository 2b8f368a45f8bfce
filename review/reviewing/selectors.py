"""Reads of the review stage, scoped to the user asking: a reviewer reaches items through their
own assignments (never their own items), an adjudicator items in adjudication they neither wrote
nor reviewed, an author the feedback on their rejected items."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import F, Prefetch, Q, QuerySet
from django.http import Http404

from annotator.access.scopes import in_member_projects
from annotator.hotpath.queue import ReviewQueue
from annotator.hotpath.steps import assignment_of_step
from annotator.models import Item
from review.models import Adjudication, ItemRevision, Review, ReviewAssignment
from review.reviewing.reasons import reason_labels

# An assignment is live while its item is where that kind of assignment expects it: a review's
# (not gold) while the item is in review, a gold check's once it is approved.
LIVE_STATE = {False: Item.State.IN_REVIEW, True: Item.State.APPROVED}
_LIVE = Q(gold=False, item__state=LIVE_STATE[False]) | Q(gold=True, item__state=LIVE_STATE[True])


def review_queue(*, reviewer: Any) -> QuerySet[ReviewAssignment]:
    """The reviewer's open assignments on current revisions, oldest first (gold checks among
    them, indistinguishable on the page), with each item and its scene. Neither the marks nor the
    provenance are read: a queue is blind (question and options), and decoding every mark and
    provenance of a page was most of its time under load (bench/scale.py --profile)."""
    mine = ReviewAssignment.objects.filter(reviewer=reviewer, done_at__isnull=True, revision=F("item__revision"))
    return (
        in_member_projects(user=reviewer, qs=mine, path="item__scene__project")
        .filter(_LIVE)
        .select_related("item__scene")
        .defer("item__provenance")
        .order_by("id")
    )


def review_queue_rows(*, reviewer: Any) -> ReviewQueue:
    """The queue as its API pages it: what `review_queue` answers, read by hand
    (annotator.hotpath.queue: building and compiling the queryset was half of that read)."""
    return ReviewQueue(reviewer=reviewer, live=LIVE_STATE)


def review_next(*, reviewer: Any, after_item_id: int | None = None) -> Item | None:
    """The next item in the reviewer's queue (after the given one, if it is still there)."""
    queue = list(review_queue(reviewer=reviewer).values_list("item_id", flat=True))
    if after_item_id in queue:
        queue = queue[queue.index(after_item_id) + 1 :] + queue[: queue.index(after_item_id)]
    return Item.objects.filter(id=queue[0]).first() if queue else None


def _found(assignment: ReviewAssignment | None) -> ReviewAssignment:
    if assignment is None:
        raise Http404("no such item in your queue")
    return assignment


# The three reads below are one query each, written by hand (annotator.hotpath.steps: building and
# compiling these querysets was most of a blind step's CPU). The rule they read: the reviewer's
# assignment on the item's current revision, if the item is of their projects and not theirs,
#
#     ReviewAssignment.objects.filter(reviewer=reviewer, item_id=item_id, revision=F("item__revision"))
#         .filter(item__scene__project_id__in=<their projects>).exclude(item__author=reviewer)


def review_assignment_get(*, reviewer: Any, item_id: int) -> ReviewAssignment:
    """The reviewer's assignment on the item's current revision, with the item, its scene and video;
    404 when there is none (other people's items, items not given to this reviewer, earlier rounds).
    The item's marks are not read here: a blind step shows none, and the answered page reads them
    when it shows them."""
    return _found(assignment_of_step(reviewer=reviewer, item_id=item_id, video=True))


def review_item_get(*, reviewer: Any, item_id: int) -> Item:
    """The item of `review_assignment_get`, with its scene (a blind answer needs no video)."""
    return _found(assignment_of_step(reviewer=reviewer, item_id=item_id)).item


def review_step_get(*, reviewer: Any, item_id: int) -> tuple[Item, Review | None]:
    """The item as `review_item_get` finds it and this reviewer's review of its current revision,
    if they have answered. Whether there is one comes with the item, so a step not yet answered is
    one query (it was two, the second most often empty); a review, when there is one, knows its
    item (the answer shows the key from it)."""
    assignment = _found(assignment_of_step(reviewer=reviewer, item_id=item_id, answered=True))
    item, review_id = assignment.item, assignment.review_id  # type: ignore[attr-defined]
    if review_id is None:
        return item, None
    review = Review.objects.get(id=review_id)
    review.item = item
    return item, review


def reviews_of_reviewer(*, reviewer: Any) -> QuerySet[Review]:
    """The reviewer's own reviews on items of their projects: those they may decide."""
    mine = Review.objects.filter(reviewer_id=reviewer.pk)
    return in_member_projects(user=reviewer, qs=mine, path="item__scene__project")


def review_for(*, reviewer: Any, item: Item) -> Review | None:
    return Review.objects.filter(item=item, revision=item.revision, reviewer=reviewer).first()


def adjudication_queue(*, user: Any) -> QuerySet[Item]:
    """Items in adjudication the user neither wrote nor reviewed in this round."""
    reviewed = Review.objects.filter(reviewer=user, revision=F("item__revision")).values("item_id")
    waiting = Item.objects.filter(state=Item.State.IN_ADJUDICATION)
    return (
        in_member_projects(user=user, qs=waiting, path="scene__project")
        .exclude(author=user)
        .exclude(id__in=reviewed)
        .select_related("scene", "author")
        .prefetch_related("marks")
        .order_by("updated_at", "id")
    )


def adjudication_item_get(*, user: Any, item_id: int) -> Item:
    item = adjudication_queue(user=user).select_related("scene__video").filter(id=item_id).first()
    if item is None:
        raise Http404("no such item in adjudication")
    return item


def reviews_of_revision(*, item: Item, revision: int | None = None) -> QuerySet[Review]:
    """The reviews (not gold checks) of one round, with their reviewers."""
    number = item.revision if revision is None else revision
    return Review.objects.filter(item=item, revision=number, gold=False).select_related("reviewer").order_by("id")


def feedback_for_items(*, items: list[Item]) -> list[dict[str, Any]]:
    """What an author sees of the rejections of their rejected items' current revisions: reasons in
    words, comments and their anchors (a mark, a video time); reviewers are not named."""
    labels = reason_labels()
    reviews = (
        Review.objects.filter(item__in=items, decision=Review.Decision.REJECT, gold=False, revision=F("item__revision"))
        .filter(item__state=Item.State.REJECTED)
        .select_related("item")
        .order_by("item_id", "id")
    )
    final = (
        Adjudication.objects.filter(item__in=items, decision=Adjudication.Decision.REJECT, revision=F("item__revision"))
        .filter(item__state=Item.State.REJECTED)
        .select_related("item")
        .order_by("item_id", "id")
    )
    rows: list[dict[str, Any]] = [
        {
            "item": r.item,
            "by": "reviewer",
            "reasons": [labels.get(x, x) for x in r.reasons],
            "comment": r.comment,
            "anchor_mark": r.anchor_mark_id,
            "anchor_time_s": r.anchor_time_s,
        }
        for r in reviews
    ]
    rows += [
        {
            "item": a.item,
            "by": "adjudicator",
            "reasons": [labels.get(x, x) for x in a.reasons],
            "comment": a.reason,
            "anchor_mark": a.anchor_mark_id,
            "anchor_time_s": a.anchor_time_s,
        }
        for a in final
    ]
    return sorted(rows, key=lambda row: (row["item"].id, row["by"] != "adjudicator"))


@dataclass
class Round:
    """One revision of an item as it was reviewed."""

    number: int
    snapshot: ItemRevision | None
    reviews: list[Review] = field(default_factory=list)
    gold_checks: list[Review] = field(default_factory=list)
    assigned: list[ReviewAssignment] = field(default_factory=list)
    adjudication: Adjudication | None = None


def item_rounds(*, item: Item) -> list[Round]:
    """Every revision of the item, newest first, with what its reviewers and adjudicator said
    (four queries whatever the number of rounds)."""
    snapshots = {s.number: s for s in ItemRevision.objects.filter(item=item).select_related("submitted_by")}
    rounds: dict[int, Round] = {}

    def at(number: int) -> Round:
        return rounds.setdefault(number, Round(number=number, snapshot=snapshots.get(number)))

    for number in snapshots:
        at(number)
    at(item.revision)
    for review in Review.objects.filter(item=item).select_related("reviewer", "anchor_mark").order_by("id"):
        (at(review.revision).gold_checks if review.gold else at(review.revision).reviews).append(review)
    assigned = ReviewAssignment.objects.filter(item=item).select_related("reviewer").order_by("id")
    for assignment in assigned:
        at(assignment.revision).assigned.append(assignment)
    for adjudication in Adjudication.objects.filter(item=item).select_related("adjudicator", "anchor_mark"):
        at(adjudication.revision).adjudication = adjudication
    return [rounds[n] for n in sorted(rounds, reverse=True)]


def reviewer_reviews(*, reviewer: Any) -> QuerySet[Review]:
    """A reviewer's own reviews, newest first, with their items (for their statistics page)."""
    return (
        in_member_projects(user=reviewer, qs=Review.objects.filter(reviewer=reviewer), path="item__scene__project")
        .select_related("item__scene")
        .prefetch_related(Prefetch("item__marks"))
        .order_by("-id")
    )
