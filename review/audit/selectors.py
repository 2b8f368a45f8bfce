"""Reads of the audit log."""

from __future__ import annotations

from django.db.models import QuerySet

from review.models import ItemEvent


def events_for_item(*, item_id: int) -> QuerySet[ItemEvent]:
    """The item's transitions, oldest first, with who made them (one query)."""
    return ItemEvent.objects.filter(item_id=item_id).select_related("actor").order_by("id")
