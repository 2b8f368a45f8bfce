"""Gold items: approved items whose keys admins trust, used to check reviewers unannounced."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from annotator.exceptions import Conflict
from annotator.models import Item
from review.models import GoldItem, Review, ReviewAssignment


@transaction.atomic
def gold_mark(*, item: Item, admin: Any) -> GoldItem:
    """Make an approved item gold; from then on it is mixed into reviewers' queues."""
    item = Item.objects.select_for_update().get(id=item.id)
    if item.state != Item.State.APPROVED:
        raise Conflict(f"the item is {item.state.replace('_', ' ')}; only approved items can be gold")
    try:
        with transaction.atomic():
            return GoldItem.objects.create(item=item, marked_by=admin)
    except IntegrityError:
        raise Conflict("the item is gold already") from None


@transaction.atomic
def gold_unmark(*, item: Item, admin: Any) -> int:
    """Stop using an item as gold: it leaves the queues of reviewers who have not answered it yet
    (answers given stay, and keep counting for their reviewers). Returns how many queues it left."""
    GoldItem.objects.filter(item=item).delete()
    answered = Review.objects.filter(item=item, gold=True).values("reviewer_id")
    removed, _ = (
        ReviewAssignment.objects.filter(item=item, gold=True, done_at__isnull=True)
        .exclude(reviewer_id__in=answered)
        .delete()
    )
    return removed
