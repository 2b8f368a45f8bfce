"""Celery entry point of releases: build one release's files (idempotent: a frozen release is
left alone, and so is one a live worker builds)."""

from __future__ import annotations

import logging

from celery import shared_task
from kombu.exceptions import OperationalError

from review.models import Release

from .jobs import release_run, releases_reclaim_lost

log = logging.getLogger(__name__)


@shared_task(
    name="review.releasing.tasks.release_build_task", acks_late=True, time_limit=4 * 3600, soft_time_limit=4 * 3600 - 60
)
def release_build_task(release_id: int) -> None:
    release_run(release_id=release_id)


def release_send(*, release_id: int) -> bool:
    """Queue the build. When the broker cannot be reached the release stays `building` with a note
    (its build can be retried from the releases page once the queue is back)."""
    try:
        release_build_task.delay(release_id)
    except OperationalError as exc:
        log.warning("release %s not queued: %s", release_id, exc)
        Release.objects.filter(id=release_id, state=Release.State.BUILDING).update(
            error=f"not queued: the task queue is unreachable ({exc}); retry the build when it is back"[:2000]
        )
        return False
    return True


def releases_recover() -> int:
    """Send again the builds whose worker vanished (lease run out). Returns how many went out."""
    return sum(release_send(release_id=r.id) for r in releases_reclaim_lost())
