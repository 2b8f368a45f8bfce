"""Celery entry points: take ids, call one service. Enqueued after commit."""

from __future__ import annotations

from celery import shared_task
from django.db import transaction

from annotator.models import MediaJob

from . import graph
from .jobs import JOB_TIME_LIMITS


@shared_task(bind=True, acks_late=True, max_retries=3, time_limit=3630, soft_time_limit=3600)
def media_job_task(self, job_id: int) -> None:  # type: ignore[no-untyped-def]
    try:
        followers = graph.job_run(job_id=job_id)
    except Exception as exc:
        if self.request.retries >= self.max_retries:
            raise  # stays `failed` with the reason media_job_run recorded
        # Anything that is not bad media (storage, database) is worth a retry with backoff.
        MediaJob.objects.filter(id=job_id).update(state=MediaJob.State.PENDING)
        raise self.retry(exc=exc, countdown=5 * 2**self.request.retries) from exc
    for job in followers:
        enqueue_job(job=job)


def enqueue_job(*, job: MediaJob) -> None:
    """Send after commit, so a worker never looks for a row that is not there yet."""
    job_id, limit = job.id, JOB_TIME_LIMITS.get(job.kind, 1800)
    transaction.on_commit(lambda: media_job_task.apply_async((job_id,), soft_time_limit=limit, time_limit=limit + 30))


def pipeline_start(*, jobs: list[MediaJob]) -> None:
    """Start the jobs that wait for no other; the task starts the rest as their inputs succeed."""
    for job in graph.jobs_first(jobs):
        enqueue_job(job=job)
