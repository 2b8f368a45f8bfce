"""Queueing model views: a new item's, a revised item's, a failed one again, a missing one (an item
compiled before model views existed). Kept apart from the rendering (modelview.py), which the
Celery task calls, so neither module imports the other's caller."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from annotator.models import Item, ModelView

from .modelview import model_view_render
from .tasks import enqueue_model_view

S = ModelView.State


def model_view_create(*, item: Item) -> ModelView:
    """A pending model view for a new item, rendered by a job once the transaction commits."""
    view = ModelView.objects.create(item=item)
    enqueue_model_view(view_id=view.id)
    return view


def model_view_rerender(*, item: Item) -> ModelView:
    """The item changed (a revision): draw its model view again, once the transaction commits."""
    view, created = ModelView.objects.get_or_create(item=item)
    if not created:
        ModelView.objects.filter(id=view.id).update(state=S.PENDING, progress=0, error="", updated_at=timezone.now())
    enqueue_model_view(view_id=view.id)
    return view


def _failed_to_pending(view_id: int) -> bool:
    return bool(
        ModelView.objects.filter(id=view_id, state=S.FAILED).update(
            state=S.PENDING, progress=0, error="", updated_at=timezone.now()
        )
    )


@transaction.atomic
def model_view_retry(*, view_id: int) -> bool:
    """Queue a failed model view again (admin action, e.g. after the satellite image was fixed).
    Returns False for a view that did not fail."""
    if not _failed_to_pending(view_id):
        return False
    enqueue_model_view(view_id=view_id)
    return True


def model_view_backfill(*, item_id: int, sync: bool = False) -> ModelView:
    """Bring an item's model view to rendering: create it when the item has none, put a failed one
    back to pending (a pending one stays as it is), then render it in this process (`sync`) or queue
    it once the transaction commits. Returns the view as it is afterwards. With `sync`, bad media
    leave it failed with the reason; other errors are recorded on it, then raised."""
    with transaction.atomic():
        view, created = ModelView.objects.get_or_create(item_id=item_id)
        if not created:
            _failed_to_pending(view.id)
        if not sync:
            enqueue_model_view(view_id=view.id)
    if sync:
        model_view_render(view_id=view.id)
    view.refresh_from_db()
    return view
