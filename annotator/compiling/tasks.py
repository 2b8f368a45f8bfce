"""Celery entry points of compiling: take ids, call one service. Enqueued after commit."""

from __future__ import annotations

from celery import shared_task
from django.db import transaction

from annotator.models import ModelView

from .modelview import model_view_render


@shared_task(bind=True, acks_late=True, max_retries=3, time_limit=630, soft_time_limit=600)
def model_view_task(self, view_id: int) -> None:  # type: ignore[no-untyped-def]
    try:
        model_view_render(view_id=view_id)
    except Exception as exc:
        if self.request.retries >= self.max_retries:
            raise  # stays `failed` with the reason model_view_render recorded
        # Not bad media (that fails for good inside the service): storage or database, worth a retry.
        ModelView.objects.filter(id=view_id).update(state=ModelView.State.PENDING)
        raise self.retry(exc=exc, countdown=5 * 2**self.request.retries) from exc


def enqueue_model_view(*, view_id: int) -> None:
    """Send after commit, so a worker never looks for a row that is not there yet."""
    transaction.on_commit(lambda: model_view_task.delay(view_id))
