"""Celery entry point of assisted tracking: takes the job's id, calls one service."""

from __future__ import annotations

from celery import shared_task
from django.db import transaction


@shared_task(acks_late=True, time_limit=930, soft_time_limit=900)
def tracking_task(job_id: int) -> None:
    """Track, project and draft (run.tracking_run); a second delivery of the message does nothing."""
    from .run import tracking_fail, tracking_run

    try:
        tracking_run(job_id=job_id)
    except Exception as exc:  # storage or database trouble: the job must not stay `running` forever
        tracking_fail(job_id=job_id, reason=f"tracking stopped on an internal error ({type(exc).__name__}: {exc})")
        raise


def enqueue_tracking(*, job_id: int) -> None:
    """Send after commit, so a worker never looks for a row that is not there yet."""
    transaction.on_commit(lambda: tracking_task.delay(job_id))
