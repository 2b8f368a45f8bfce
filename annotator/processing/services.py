"""Writes of the processing stage that people ask for (jobs run through tasks.py)."""

from __future__ import annotations

from django.db import transaction

from annotator.exceptions import Conflict
from annotator.models import MediaJob

from .tasks import enqueue_job


@transaction.atomic
def media_job_retry(*, job_id: int) -> MediaJob:
    """Put a failed job back in the queue (admin action); its followers start again when it succeeds."""
    job = MediaJob.objects.select_for_update().get(id=job_id)
    if job.state != MediaJob.State.FAILED:
        raise Conflict(f"only failed jobs can be retried; this one is {job.state}")
    job.state, job.progress, job.error = MediaJob.State.PENDING, 0, ""
    job.save(update_fields=["state", "progress", "error", "updated_at"])
    enqueue_job(job=job)
    return job
