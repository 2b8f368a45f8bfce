"""Reads of the review stage, scoped to the reviewer (a reviewer never reaches their own items)."""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, QuerySet
from django.http import Http404

from annotator.models import Item
from review.models import Review
from review.reviewing.reasons import REASONS


def review_queue(*, reviewer: Any) -> QuerySet[Item]:
    """Items in review that this reviewer neither wrote nor has decided yet."""
    decided = Review.objects.filter(item=OuterRef("pk"), reviewer=reviewer).exclude(decision="pending")
    return (
        Item.objects.filter(state=Item.State.IN_REVIEW)
        .exclude(author=reviewer)
        .annotate(decided=Exists(decided))
        .filter(decided=False)
        .select_related("scene")
        .prefetch_related("marks")
        .order_by("id")
    )


def review_item_get(*, reviewer: Any, item_id: int) -> Item:
    """An item a reviewer may look at: in review (or reviewed by them), never their own."""
    item = (
        Item.objects.select_related("scene__video")
        .prefetch_related("marks")
        .filter(id=item_id)
        .exclude(author=reviewer)
        .first()
    )
    if item is None:
        raise Http404("no such item")
    if item.state != Item.State.IN_REVIEW and not item.reviews.filter(reviewer=reviewer).exists():
        raise Http404("no such item")
    return item


def review_for(*, reviewer: Any, item: Item) -> Review | None:
    return Review.objects.filter(item=item, reviewer=reviewer).first()


def reviews_for_item(*, item: Item) -> QuerySet[Review]:
    return Review.objects.filter(item=item).select_related("reviewer").order_by("id")


def feedback_for_items(*, items: list[Item]) -> list[dict[str, Any]]:
    """What an annotator sees of rejections: reasons, comments and anchored marks, no names."""
    reviews = (
        Review.objects.filter(item__in=items, decision=Review.Decision.REJECT)
        .select_related("item")
        .order_by("item_id", "id")
    )
    return [
        {
            "item": r.item,
            "reasons": [REASONS.get(x, x) for x in r.reasons],
            "comment": r.comment,
            "anchor_mark": r.anchor_mark_id,
        }
        for r in reviews
    ]
