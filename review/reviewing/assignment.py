"""Who reviews what. Each submitted revision goes to as many reviewers as the policy asks, never
to its author, least-loaded first (open assignments, then whoever was given an item longest ago,
then id, so ties break the same way every time); a revision after a rejection prefers reviewers who have not seen
the item yet, so their answers stay blind. Gold items are mixed into each queue at the policy's
rate, unannounced."""

from __future__ import annotations

import math
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Count, IntegerField, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce

from annotator.access.roles import REVIEWER, has_role
from annotator.exceptions import Conflict
from annotator.models import Item, ProjectMembership
from review.models import GoldItem, Review, ReviewAssignment, ReviewPolicy
from review.reviewing.policy import policy_for_item


def _reviewer_loads(*, exclude: set[int], project_id: int) -> list[tuple[int, int, int]]:
    """(id, open, latest) for every active reviewer of the project not in `exclude`, in one query: `open` counts
    the reviewer's undecided assignments, `latest` is the id of the last one they were given (0
    for never).

    Why open work and recency rather than a count of every assignment ever: that count grew with
    the whole table and ran on every submit, so filling a queue of thousands of items got slower
    with each one (3,580 items took a minute, 17,903 thirteen). Both numbers here are per-reviewer
    index lookups: `open` is a range of the (reviewer, done_at) index, as long as the reviewer's
    backlog rather than their history; `latest` is one step down the (reviewer, id) index.
    Ties on open work go to whoever waited longest for an item, which rotates equals just as the
    lifetime count did, without reading the history."""
    mine = ReviewAssignment.objects.filter(reviewer=OuterRef("pk")).order_by()
    open_work = mine.filter(done_at__isnull=True).values("reviewer").annotate(n=Count("id")).values("n")
    latest = mine.order_by("-id").values("id")[:1]
    rows = (
        get_user_model()
        .objects.filter(is_active=True, groups__name=REVIEWER)
        # only the project's reviewers: nobody else may see its items
        .filter(project_memberships__project_id=project_id, project_memberships__role=REVIEWER)
        .exclude(id__in=exclude)
        .annotate(
            open=Coalesce(Subquery(open_work, output_field=IntegerField()), 0),
            latest=Coalesce(Subquery(latest, output_field=IntegerField()), 0),
        )
        .values_list("id", "open", "latest")
    )
    return list(rows)


@transaction.atomic
def assignments_fill(*, item: Item, policy: ReviewPolicy | None = None) -> list[ReviewAssignment]:
    """Top the item's current revision up to the policy's number of reviewers (fewer when there
    are not enough reviewers; an admin can add more later). Returns the new assignments; each new
    reviewer's queue gets its share of gold checks."""
    policy = policy or policy_for_item(item)
    # Two submits at once would read the same loads and both pick the same least-loaded reviewer:
    # the policy row is the lock that puts fills one after the other (held until the submit
    # commits; one short query each, so nobody waits long). SQLite serializes writers anyway.
    ReviewPolicy.objects.select_for_update().values_list("id", flat=True).get(id=policy.id)
    current = ReviewAssignment.objects.filter(item=item, revision=item.revision, gold=False)
    taken = set(current.values_list("reviewer_id", flat=True))
    need = policy.reviewers_per_item - len(taken)
    if need <= 0:
        return []
    seen = set(
        ReviewAssignment.objects.filter(item=item, revision__lt=item.revision).values_list("reviewer_id", flat=True)
    )
    loads = _reviewer_loads(exclude=taken | {item.author_id}, project_id=policy.project_id)
    ranked = sorted(loads, key=lambda row: (row[0] in seen, row[1], row[2], row[0]))
    rows = ReviewAssignment.objects.bulk_create(
        ReviewAssignment(item=item, revision=item.revision, reviewer_id=reviewer_id)
        for reviewer_id, _, _ in ranked[:need]
    )
    for row in rows:
        gold_top_up(reviewer_id=row.reviewer_id, policy=policy)
    return rows


def gold_top_up(*, reviewer_id: int, policy: ReviewPolicy) -> list[ReviewAssignment]:
    """Add gold checks until they are the policy's share of everything this reviewer was given:
    gold / (real + gold) = rate, so one in ten at 10 %. Each check is an approved gold item the
    reviewer neither wrote nor saw, the least used first."""
    if policy.gold_rate <= 0:
        return []
    counts = ReviewAssignment.objects.filter(reviewer_id=reviewer_id).aggregate(
        real=Count("id", filter=Q(gold=False)), gold=Count("id", filter=Q(gold=True))
    )
    target = math.floor(counts["real"] * policy.gold_rate / (1 - policy.gold_rate) + 1e-9)
    missing = target - counts["gold"]
    if missing <= 0:
        return []
    seen = ReviewAssignment.objects.filter(reviewer_id=reviewer_id).values("item_id")
    reviewed = Review.objects.filter(reviewer_id=reviewer_id).values("item_id")
    pool = (
        GoldItem.objects.filter(item__state=Item.State.APPROVED, item__scene__project_id=policy.project_id)
        .exclude(item__author_id=reviewer_id)
        .exclude(item_id__in=seen)
        .exclude(item_id__in=reviewed)
        .annotate(uses=Count("item__review_assignments", filter=Q(item__review_assignments__gold=True)))
        .order_by("uses", "item_id")
        .values_list("item_id", "item__revision")[:missing]
    )
    return ReviewAssignment.objects.bulk_create(
        ReviewAssignment(item_id=item_id, revision=revision, reviewer_id=reviewer_id, gold=True)
        for item_id, revision in pool
    )


@transaction.atomic
def assignment_add(*, item: Item, reviewer: Any, actor: Any) -> ReviewAssignment:
    """An admin puts an item in review into one more reviewer's queue (too few reviewers, or a
    reviewer away). Refused for the author and for someone already on this revision."""
    item = Item.objects.select_for_update().get(id=item.id)
    if item.state != Item.State.IN_REVIEW:
        raise Conflict(f"the item is {item.state.replace('_', ' ')}; only items in review get reviewers")
    if not has_role(reviewer, REVIEWER) or not reviewer.is_active:
        raise ValidationError({"reviewer": "choose an active reviewer"})
    if reviewer.pk == item.author_id:
        raise ValidationError({"reviewer": "nobody reviews an item they wrote"})
    members = ProjectMembership.objects.filter(project__scenes=item.scene_id, user=reviewer, role=REVIEWER)
    if not members.exists():
        raise ValidationError({"reviewer": f"{reviewer} is not a reviewer of this item's project"})
    try:
        with transaction.atomic():
            return ReviewAssignment.objects.create(
                item=item, revision=item.revision, reviewer=reviewer, assigned_by=actor
            )
    except IntegrityError:
        raise Conflict("this reviewer already has this item") from None


@transaction.atomic
def assignment_remove(*, assignment_id: int, actor: Any) -> None:
    """Take an item out of a reviewer's queue before they answered it (they are away); the item
    then waits for the reviewer an admin adds instead."""
    assignment = ReviewAssignment.objects.select_for_update().get(id=assignment_id)
    started = Review.objects.filter(
        item_id=assignment.item_id, revision=assignment.revision, reviewer_id=assignment.reviewer_id
    ).exists()
    if started:
        raise Conflict("the reviewer has answered this item already; the review stays")
    assignment.delete()
