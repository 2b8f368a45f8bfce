"""Media jobs: claim a row, run one step outside the transaction, record the outcome.

A step is a function (job, report_progress) -> str | None (a short finding shown to people, e.g.
"proxy not needed") that raises media_tools.MediaError for bad media (a permanent failure with a
reason), JobSkipped when it has nothing to work with yet (no model for previews), and cleans up its
own partial files.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import timedelta

from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction
from django.utils import timezone

import media_tools
from annotator.models import MediaJob

log = logging.getLogger(__name__)

ProgressFn = Callable[[float], None]
Step = Callable[[MediaJob, ProgressFn], str | None]
# Seconds a step may run before the worker stops it (soft limit; the hard limit is 30 s later).
JOB_TIME_LIMITS: dict[str, int] = {
    "probe": 120,
    "keyframes": 1800,
    "filmstrip": 600,
    "proxy": 3600,
    "telemetry": 600,
    "render": 1800,
    "georeference": 600,
    "tiles": 3600,
    "valid_area": 600,
    "cvaa": 1800,
}
# A job still "running" after this long belonged to a worker that died; it may be claimed again.
STALE_RUNNING = timedelta(minutes=30)


class TransientJobError(Exception):
    """Worth retrying (storage or database hiccup); the task retries with backoff."""


class JobSkipped(Exception):  # noqa: N818 - the name reads as what happened
    """The step has nothing to work with yet; the message tells a person what would change that.
    The job ends `skipped` (not failed: the media are fine) and may run again later."""


def _claim(job_id: int) -> MediaJob | None:
    with transaction.atomic():
        job = MediaJob.objects.select_for_update().get(id=job_id)
        if job.state == MediaJob.State.SUCCEEDED:
            return None
        fresh_run = job.started_at and timezone.now() - job.started_at < STALE_RUNNING
        if job.state == MediaJob.State.RUNNING and fresh_run:
            return None
        job.state, job.progress, job.error, job.detail = MediaJob.State.RUNNING, 0, "", ""
        job.attempts += 1
        job.started_at, job.finished_at = timezone.now(), None
        job.save(
            update_fields=[
                "state",
                "progress",
                "error",
                "detail",
                "attempts",
                "started_at",
                "finished_at",
                "updated_at",
            ]
        )
        return job


def _progress_reporter(job_id: int) -> ProgressFn:
    last = {"pct": -1, "at": 0.0}

    def report(fraction: float) -> None:
        pct = max(0, min(99, int(fraction * 100)))
        # Throttle writes: the UI polls every second, the database need not hear every frame.
        if pct > last["pct"] and time.monotonic() - last["at"] > 0.5:
            MediaJob.objects.filter(id=job_id).update(progress=pct, updated_at=timezone.now())
            last.update(pct=pct, at=time.monotonic())

    return report


def _finish(job_id: int, *, state: str, error: str = "", detail: str = "") -> None:
    MediaJob.objects.filter(id=job_id).update(
        state=state,
        error=error[:2000],
        detail=detail[:300],
        finished_at=timezone.now(),
        updated_at=timezone.now(),
        **({"progress": 100} if state == MediaJob.State.SUCCEEDED else {}),
    )


def media_job_run(*, job_id: int, step: Step) -> bool:
    """Run `step` for the job unless it already succeeded or is running. Returns True when the
    step ran and succeeded. Bad media ends in `failed` with the reason; other errors propagate
    (after recording them) so the task can retry."""
    job = _claim(job_id)
    if job is None:
        return False
    try:
        detail = step(job, _progress_reporter(job_id))
    except JobSkipped as exc:
        _finish(job_id, state=MediaJob.State.SKIPPED, detail=str(exc))
        return False
    except media_tools.MediaError as exc:
        _finish(job_id, state=MediaJob.State.FAILED, error=str(exc))
        return False
    except SoftTimeLimitExceeded:
        # Retrying would hit the same limit; say so, so an admin can raise it or split the input.
        limit = JOB_TIME_LIMITS.get(job.kind, 0)
        _finish(
            job_id,
            state=MediaJob.State.FAILED,
            error=f"stopped after the {limit // 60} min time limit for this step (the input is too large or slow)",
        )
        return False
    except Exception as exc:
        log.exception("media job %s (%s) crashed", job_id, job.kind)
        _finish(job_id, state=MediaJob.State.FAILED, error=f"internal error while processing: {exc}")
        raise
    _finish(job_id, state=MediaJob.State.SUCCEEDED, detail=detail or "")
    return True


def media_job_reset(*, job_id: int) -> None:
    """Make a job runnable again (bulk reprocessing); its step replaces earlier outputs."""
    MediaJob.objects.filter(id=job_id).update(
        state=MediaJob.State.PENDING,
        progress=0,
        error="",
        detail="",
        started_at=None,
        finished_at=None,
        updated_at=timezone.now(),
    )
