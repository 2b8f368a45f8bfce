"""Celery entry points of compiling: take ids, call one service. Enqueued after commit.

Model views have a queue of their own, `views` (CELERY_TASK_ROUTES), so media jobs never wait behind
thousands of them. Its message carries no id: the ModelView table is the queue (modelview/claims.py),
and one message renders every pending view, so a transaction that queues many views sends one, and
while a message waits for a worker no other is sent (ViewsSignal): the broker holds one or two."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from kombu.exceptions import OperationalError

from annotator.models import ModelView

from .modelview import model_view_render, model_views_drain
from .modelview.claims import CLAIM_SIZE, views_reclaim_lost, views_signal_raise, views_signal_taken

log = logging.getLogger(__name__)
# Views one message renders before it hands over to a new message, so no task nears its time limit
# and other work of the queue's workers gets its turn.
VIEWS_PER_MESSAGE = 400


@shared_task(bind=True, acks_late=True, max_retries=3, time_limit=630, soft_time_limit=600)
def model_views_task(self: Any) -> None:
    """Render pending model views. When more are waiting than one claim, another message goes out
    first, so another worker process joins in (the queue's processes render in parallel)."""
    views_signal_taken()
    eager = bool(self.request.is_eager)  # a test running tasks in-process: no fan-out into recursion
    if not eager and ModelView.objects.filter(state=ModelView.State.PENDING).count() > CLAIM_SIZE:
        views_send()
    try:
        model_views_drain(limit=VIEWS_PER_MESSAGE)
    except SoftTimeLimitExceeded:
        log.warning("model views: stopped at the time limit; the rest are sent again")
    if ModelView.objects.filter(state=ModelView.State.PENDING).exists():
        views_send()


@shared_task(bind=True, acks_late=True, max_retries=3, time_limit=630, soft_time_limit=600)
def model_view_task(self, view_id: int) -> None:  # type: ignore[no-untyped-def]
    """One view by id: messages queued before views were drained in batches still render."""
    try:
        model_view_render(view_id=view_id)
    except Exception as exc:
        if self.request.retries >= self.max_retries:
            raise  # stays `failed` with the reason model_view_render recorded
        # Not bad media (that fails for good inside the service): storage or database, worth a retry.
        ModelView.objects.filter(id=view_id).update(state=ModelView.State.PENDING)
        raise self.retry(exc=exc, countdown=5 * 2**self.request.retries) from exc


def views_render_in_process() -> bool:
    """Whether a view queued now is rendered inside this process when its transaction commits (an
    eager Celery, as in the browser tests), so the stored row may be done before the answer goes."""
    return bool(model_views_task.app.conf.task_always_eager)


def views_send(*, force: bool = False) -> bool:
    """Tell the `views` workers that views are pending, unless a message saying so is still waiting
    for a worker (`force`: send anyway). With the broker down nothing fails: the views stay pending
    and every worker's recovery loop sends again (views_recover). Returns whether one went out."""
    if not views_signal_raise() and not force:
        return False
    try:
        model_views_task.delay()
    except OperationalError as exc:
        views_signal_taken()  # none is waiting after all
        log.warning("model views not queued yet (the task queue is unreachable: %s); sent when it is back", exc)
        return False
    return True


class _SendOnCommit:
    """views_send, once, when the transaction it was registered in commits."""

    def __init__(self, owner: object) -> None:
        self.owner, self.sent = owner, False

    def __call__(self) -> None:
        self.sent = True
        views_send()


def _outermost_block(connection: Any) -> object | None:
    """The outermost open atomic block (a test case's own blocks aside: they never commit)."""
    return next((a for a in connection.atomic_blocks if not getattr(a, "_from_testcase", False)), None)


def enqueue_model_view(*, view_id: int) -> None:
    """Send after commit, so a worker never looks for a row that is not there yet; one message per
    transaction however many views it queues (a compile-all batch, a backfill)."""
    connection = transaction.get_connection()
    owner = _outermost_block(connection)
    # Django keeps the callbacks of the open transaction in this list (dropping those of a savepoint
    # rolled back), so a later view of the same transaction finds the first one's message there.
    if owner is not None and any(
        isinstance(cb, _SendOnCommit) and cb.owner is owner and not cb.sent
        for cb in (entry[1] for entry in connection.run_on_commit)
    ):
        return
    transaction.on_commit(_SendOnCommit(owner))


def views_recover() -> int:
    """Views of vanished workers back to pending, and a message when views have waited a lease
    without one taking them (the broker was down, a message was lost). Workers call this on start
    and every half lease (config/celery.py). Returns how many views went back to pending."""
    back = views_reclaim_lost()
    waited = timezone.now() - timedelta(seconds=settings.SKYMARK_JOB_LEASE_S)
    if back or ModelView.objects.filter(state=ModelView.State.PENDING, updated_at__lt=waited).exists():
        views_send(force=True)  # also when a message is thought to wait: it may have been lost
    return back
