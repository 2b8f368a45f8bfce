"""Celery entry points: take ids, call one service."""

from __future__ import annotations

from celery import shared_task
from django.db import transaction

from annotator.models import MediaJob


@shared_task(bind=True, acks_late=True, max_retries=3, time_limit=3630, soft_time_limit=3600)
def media_job_task(self, job_id: int) -> None:  # type: ignore[no-untyped-def]
    from annotator.services.jobs import media_job_run
    from annotator.services.pipeline import NEXT, STEPS

    job = MediaJob.objects.get(id=job_id)
    try:
        succeeded = media_job_run(job_id=job_id, step=STEPS[job.kind])
    except Exception as exc:
        if self.request.retries >= self.max_retries:
            raise  # stays `failed` with the reason media_job_run recorded
        # Anything that is not bad media (storage, database) is worth a retry with backoff.
        MediaJob.objects.filter(id=job_id).update(state=MediaJob.State.PENDING)
        raise self.retry(exc=exc, countdown=5 * 2**self.request.retries) from exc
    if succeeded:
        target = {"scene_id": job.scene_id} if job.scene_id else {"satellite_image_id": job.satellite_image_id}
        for kind in NEXT.get(job.kind, []):
            follow = MediaJob.objects.filter(kind=kind, **target).first()
            if follow is not None:
                enqueue_job(job=follow)


def enqueue_job(*, job: MediaJob) -> None:
    """Send after commit, so a worker never looks for a row that is not there yet."""
    from annotator.services.jobs import JOB_TIME_LIMITS

    job_id, limit = job.id, JOB_TIME_LIMITS.get(job.kind, 1800)
    transaction.on_commit(lambda: media_job_task.apply_async((job_id,), soft_time_limit=limit, time_limit=limit + 30))


def enqueue_first_jobs(*, jobs: list[MediaJob]) -> None:
    """Start the jobs that wait for no other job; the rest follow as their inputs succeed."""
    from annotator.services.pipeline import FIRST

    for job in jobs:
        if job.kind in FIRST:
            enqueue_job(job=job)
