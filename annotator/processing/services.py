"""Writes of the processing stage that people ask for (jobs run through tasks.py)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from annotator.exceptions import Conflict
from annotator.models import MediaJob

from .jobs import job_held
from .tasks import enqueue_job


@transaction.atomic
def media_job_retry(*, job_id: int) -> MediaJob:
    """Put a job back in the queue (admin action): a failed or skipped one, a succeeded one to
    process again, a pending one that never reached a worker, or a running one whose worker
    vanished (its lease ran out). Raises Conflict while a live worker runs it. Its step replaces
    earlier outputs; its followers start again when it succeeds."""
    job = MediaJob.objects.select_for_update().get(id=job_id)
    if job_held(job):
        assert job.lease_until is not None
        left = int((job.lease_until - timezone.now()).total_seconds()) + 1
        raise Conflict(
            f"this job is running ({job.progress}%) on a live worker; wait for it to end, or retry "
            f"if its worker stops renewing it (its lease runs out in {left} s)"
        )
    job.state, job.progress, job.error, job.detail = MediaJob.State.PENDING, 0, "", ""
    job.lease_until, job.unsent_since, job.workers_lost = None, None, 0
    fields = ["state", "progress", "error", "detail", "lease_until", "unsent_since", "workers_lost", "updated_at"]
    job.save(update_fields=fields)
    enqueue_job(job=job)
    return job
