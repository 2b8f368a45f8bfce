"""Celery entry point of releases: build one release's files (idempotent: a frozen release is
left alone)."""

from __future__ import annotations

from celery import shared_task

from .jobs import release_run


@shared_task(
    name="review.releasing.tasks.release_build_task", acks_late=True, time_limit=4 * 3600, soft_time_limit=4 * 3600 - 60
)
def release_build_task(release_id: int) -> None:
    release_run(release_id=release_id)
