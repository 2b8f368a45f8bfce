"""Reads of compiled items, scoped to the user asking (annotator.access.scopes)."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet
from django.http import Http404

from annotator.access.scopes import items_visible
from annotator.compiling.lifecycle import OPEN_STATES
from annotator.models import Item


def items_for_user(*, user: Any, scene_id: int | None = None, open_only: bool = False) -> QuerySet[Item]:
    """Admins: all items; annotators: their own, with their review tallies. `open_only`: the drafts
    and rejected items still the author's to fix (not replaced by a recompiled one)."""
    qs = (
        Item.objects.select_related("scene", "model_view")
        .prefetch_related("marks")
        .annotate(
            approvals=Count("reviews", filter=Q(reviews__decision="approve")),
            rejections=Count("reviews", filter=Q(reviews__decision="reject")),
        )
    )
    if scene_id is not None:
        qs = qs.filter(scene_id=scene_id)
    if open_only:
        qs = qs.filter(state__in=OPEN_STATES, replaced_by__isnull=True)
    return items_visible(user=user, qs=qs)


def item_get(*, user: Any, item_id: int) -> Item:
    item = items_for_user(user=user).filter(id=item_id).first()
    if item is None:
        raise Http404("no such item")
    return item
