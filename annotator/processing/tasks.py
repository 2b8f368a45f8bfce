"""Celery entry points: take ids, call one service. Enqueued after commit.

CVAA work has tasks of its own named `cvaa_*`, which CELERY_TASK_ROUTES (config/settings/celery.py)
sends to the `gpu` queue; a worker there uses the GPU when it has one and the CPU otherwise."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.db import transaction
from django.db.models.functions import Coalesce, Now
from kombu.exceptions import OperationalError

from annotator.models import CvaaTraining, MediaJob

from . import graph
from .cvaa import training
from .jobs import JOB_TIME_LIMITS, jobs_reclaim_lost, jobs_unsent

log = logging.getLogger(__name__)


def _run_job(task: Any, job_id: int) -> None:
    try:
        followers = graph.job_run(job_id=job_id)
    except Exception as exc:
        if task.request.retries >= task.max_retries:
            raise  # stays `failed` with the reason media_job_run recorded
        # Anything that is not bad media (storage, database) is worth a retry with backoff.
        MediaJob.objects.filter(id=job_id).update(state=MediaJob.State.PENDING)
        raise task.retry(exc=exc, countdown=5 * 2**task.request.retries) from exc
    for job in followers:
        enqueue_job(job=job)


@shared_task(bind=True, acks_late=True, max_retries=3, time_limit=3630, soft_time_limit=3600)
def media_job_task(self: Any, job_id: int) -> None:
    _run_job(self, job_id)


@shared_task(bind=True, acks_late=True, max_retries=3, time_limit=3630, soft_time_limit=3600)
def cvaa_job_task(self: Any, job_id: int) -> None:
    """A media job whose step belongs on a GPU worker (graph.GPU_KINDS)."""
    _run_job(self, job_id)


@shared_task(acks_late=True, time_limit=6 * 3600 + 60, soft_time_limit=6 * 3600)
def cvaa_train_task(run_id: int) -> None:
    """Train a checkpoint for a CvaaTraining row; then recompute previews if it became active."""
    enqueue_jobs(jobs=training.training_run(run_id=run_id))


def enqueue_job(*, job: MediaJob) -> None:
    """Send after commit, so a worker never looks for a row that is not there yet."""
    job_id, kind = job.id, job.kind
    transaction.on_commit(lambda: job_send(job_id=job_id, kind=kind))


def job_send(*, job_id: int, kind: str, resend: bool = False) -> bool:
    """Put the job's message on the queue. When the broker cannot be reached the job stays pending
    with a note saying so (never an error for the request that asked), and workers send it again
    once the broker is back (jobs_recover). Returns whether it was sent."""
    limit = JOB_TIME_LIMITS.get(kind, 1800)
    task = cvaa_job_task if kind in graph.GPU_KINDS else media_job_task
    try:
        task.apply_async((job_id,), soft_time_limit=limit, time_limit=limit + 30)
    except OperationalError as exc:
        log.warning("media job %s not queued: %s", job_id, exc)
        MediaJob.objects.filter(id=job_id, state=MediaJob.State.PENDING).update(
            unsent_since=Coalesce("unsent_since", Now()),
            detail=f"not queued yet: the task queue is unreachable ({exc})"[:260] + "; sent when it is back",
            updated_at=Now(),
        )
        return False
    if resend:
        MediaJob.objects.filter(id=job_id, unsent_since__isnull=False).update(unsent_since=None, detail="")
    return True


def jobs_recover() -> int:
    """Send again the jobs whose worker vanished (lease run out) and those the broker could not
    take earlier. Workers call this on start and every little while (config/celery.py). Returns
    how many went out."""
    sent = 0
    for job in jobs_reclaim_lost() + jobs_unsent():
        sent += job_send(job_id=job.id, kind=job.kind, resend=True)
    return sent


def enqueue_jobs(*, jobs: list[MediaJob]) -> None:
    for job in jobs:
        enqueue_job(job=job)


def enqueue_training(*, run: CvaaTraining) -> None:
    run_id = run.id
    transaction.on_commit(lambda: cvaa_train_task.delay(run_id))


def pipeline_start(*, jobs: list[MediaJob]) -> None:
    """Start the jobs that wait for no other; the task starts the rest as their inputs succeed."""
    for job in graph.jobs_first(jobs):
        enqueue_job(job=job)
