"""Media jobs: claim a row, run one step outside the transaction, record the outcome.

A step is a function (job, report_progress) -> str | None (a short finding shown to people, e.g.
"proxy not needed") that raises media_tools.MediaError for bad media (a permanent failure with a
reason), JobSkipped when it has nothing to work with yet (no model for previews), JobWaiting while a
job it reads from has still to run, and cleans up its own partial files.
"""

from __future__ import annotations

import enum
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

import media_tools
from annotator.models import MediaJob

from .lease import heartbeat, lease_end, lease_live, private_tempdir
from .leftovers import job_leftovers_remove

log = logging.getLogger(__name__)

ProgressFn = Callable[[float], None]
Step = Callable[[MediaJob, ProgressFn], str | None]
# Seconds a step may run before the worker stops it (soft limit; the hard limit is 30 s later).
# Workers lost in a row on one job before it ends `failed` rather than queued again.
MAX_WORKERS_LOST = 3
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
    "placements": 3600,
}


class TransientJobError(Exception):
    """Worth retrying (storage or database hiccup); the task retries with backoff."""


class JobWaiting(Exception):  # noqa: N818 - the name reads as what happened
    """Jobs this one reads from have still to run (their kinds, `inputs`); the job goes back to `pending`,
    unstarted and unfinished, with `waiting_for` naming them (never a finished state, so nobody takes it
    for done), and the graph sends it again when one of them ends."""

    def __init__(self, inputs: Sequence[str]) -> None:
        self.inputs = list(inputs)
        super().__init__(f"waiting for {', '.join(self.inputs)}: it runs when they are done")


class Outcome(enum.Enum):
    """How a call to media_job_run ended, for the graph to decide what to send next."""

    NOT_RUN = "not run"  # succeeded already, held by a live worker, or this run was taken over
    SUCCEEDED = "succeeded"
    ENDED = "ended"  # skipped or failed: a final state, but no success
    WAITING = "waiting"  # back to pending until an input ends
    AGAIN = "again"  # an input changed while it ran: back to pending, to be sent again now


class JobSkipped(Exception):  # noqa: N818 - the name reads as what happened
    """The step has nothing to work with yet; the message tells a person what would change that.
    The job ends `skipped` (not failed: the media are fine) and may run again later."""


def job_held(job: MediaJob) -> bool:
    """Whether a live worker runs the job now (running, and its lease has not run out)."""
    return job.state == MediaJob.State.RUNNING and lease_live(job.lease_until)


def _claim(job_id: int) -> MediaJob | None:
    """Take the job unless it succeeded or a live worker holds it (its lease has not run out)."""
    with transaction.atomic():
        job = MediaJob.objects.select_for_update().get(id=job_id)
        if job.state == MediaJob.State.SUCCEEDED:
            return None
        if job_held(job):
            return None
        if job.state == MediaJob.State.RUNNING:
            log.warning("media job %s (%s): its worker vanished; running it again", job_id, job.kind)
        job.state, job.progress, job.error, job.detail = MediaJob.State.RUNNING, 0, "", ""
        # This run reads its inputs as they are now: a change asked for before it is in it.
        job.rerun, job.waiting_for = False, ""
        job.attempts += 1
        job.started_at, job.finished_at = timezone.now(), None
        job.lease_until, job.unsent_since = lease_end(), None
        job.save(
            update_fields=[
                "state",
                "progress",
                "error",
                "detail",
                "attempts",
                "started_at",
                "finished_at",
                "lease_until",
                "unsent_since",
                "rerun",
                "waiting_for",
                "updated_at",
            ]
        )
    # Files a killed run stored and no row names; this run replaces the rest.
    if strays := job_leftovers_remove(job=job):
        log.info("media job %s: removed %d file(s) an interrupted run left", job_id, len(strays))
    return job


def _mine(job_id: int, attempt: int) -> QuerySet[MediaJob]:
    """The job's row while this run still holds it (a run whose lease ran out and was taken over
    writes nothing more: its successor owns the row)."""
    return MediaJob.objects.filter(id=job_id, state=MediaJob.State.RUNNING, attempts=attempt)


def _progress_reporter(job_id: int, attempt: int) -> ProgressFn:
    last = {"pct": -1, "at": 0.0}

    def report(fraction: float) -> None:
        pct = max(0, min(99, int(fraction * 100)))
        # Throttle writes: the UI polls every second, the database need not hear every frame.
        if pct > last["pct"] and time.monotonic() - last["at"] > 0.5:
            _mine(job_id, attempt).update(progress=pct, lease_until=lease_end(), updated_at=timezone.now())
            last.update(pct=pct, at=time.monotonic())

    return report


def _finish(
    job_id: int, attempt: int, *, state: str, error: str = "", detail: str = "", waiting_for: str = ""
) -> Outcome:
    """Record the outcome if this run still holds the job. When an input changed while it ran (`rerun`,
    media_job_again), what the step wrote stays and the job goes back to pending to run again with the
    change, whatever this run ended in (Outcome.AGAIN: the caller sends it)."""
    now = timezone.now()
    with transaction.atomic():
        # The row lock orders this against media_job_again: a change comes before this (and is seen
        # here) or after (and finds the job no longer held, so it sends the job itself).
        mine = _mine(job_id, attempt).select_for_update().values_list("rerun", flat=True).first()
        if mine is None:
            log.warning("media job %s: run %s was taken over; its outcome (%s) is dropped", job_id, attempt, state)
            return Outcome.NOT_RUN
        if mine:
            ran = f"{state}: {error or detail}" if error or detail else state
            _mine(job_id, attempt).update(
                state=MediaJob.State.PENDING,
                progress=0,
                error="",
                detail=f"runs again: an input changed while it ran (that run {ran})"[:300],
                started_at=None,
                finished_at=None,
                lease_until=None,
                rerun=False,
                waiting_for="",
                updated_at=now,
            )
            return Outcome.AGAIN
        waiting = state == MediaJob.State.PENDING
        change: dict[str, Any] = {"finished_at": now}
        if waiting:  # a job back in line has neither started nor finished, whatever this run did
            change = {"started_at": None, "finished_at": None, "progress": 0}
        elif state == MediaJob.State.SUCCEEDED:
            change |= {"progress": 100, "workers_lost": 0}
        _mine(job_id, attempt).update(
            state=state,
            error=error[:2000],
            detail=detail[:300],
            waiting_for=waiting_for[:200],
            lease_until=None,
            updated_at=now,
            **change,
        )
    if waiting:
        return Outcome.WAITING
    return Outcome.SUCCEEDED if state == MediaJob.State.SUCCEEDED else Outcome.ENDED


def media_job_run(*, job_id: int, step: Step) -> Outcome:
    """Run `step` for the job unless it already succeeded or a live worker runs it, and say how it
    ended (Outcome; SUCCEEDED only when this run still held the job). Bad media ends in `failed`
    with the reason; other errors propagate (after recording them) so the task can retry. While
    the step runs the job's lease is renewed; its temporary files live in a folder of the job's
    own, removed afterwards."""
    job = _claim(job_id)
    if job is None:
        return Outcome.NOT_RUN
    attempt = job.attempts
    try:
        with (
            heartbeat(lambda: _mine(job_id, attempt).update(lease_until=lease_end()), name=f"job {job_id}"),
            private_tempdir(Path(settings.SKYMARK_JOB_TMP_DIR) / f"job-{job_id}"),
        ):
            detail = step(job, _progress_reporter(job_id, attempt))
    except JobSkipped as exc:
        return _finish(job_id, attempt, state=MediaJob.State.SKIPPED, detail=str(exc))
    except JobWaiting as exc:
        return _finish(job_id, attempt, state=MediaJob.State.PENDING, detail=str(exc), waiting_for=",".join(exc.inputs))
    except media_tools.MediaError as exc:
        return _finish(job_id, attempt, state=MediaJob.State.FAILED, error=str(exc))
    except SoftTimeLimitExceeded:
        # Retrying would hit the same limit; say so, so an admin can raise it or split the input.
        limit = JOB_TIME_LIMITS.get(job.kind, 0)
        return _finish(
            job_id,
            attempt,
            state=MediaJob.State.FAILED,
            error=f"stopped after the {limit // 60} min time limit for this step (the input is too large or slow)",
        )
    except Exception as exc:
        log.exception("media job %s (%s) crashed", job_id, job.kind)
        _finish(job_id, attempt, state=MediaJob.State.FAILED, error=f"internal error while processing: {exc}")
        raise
    # A run that was taken over (its lease ran out while it went on) leaves the followers to its successor.
    return _finish(job_id, attempt, state=MediaJob.State.SUCCEEDED, detail=detail or "")


def jobs_reclaim_lost() -> list[MediaJob]:
    """Put back in line the running jobs whose lease ran out (their worker vanished), each once even
    when several workers look at the same time; a job whose workers vanished MAX_WORKERS_LOST times
    in a row ends `failed` instead (it likely kills them). Returns the jobs to send again."""
    lost = MediaJob.objects.filter(state=MediaJob.State.RUNNING).filter(
        Q(lease_until__lt=timezone.now()) | Q(lease_until__isnull=True)
    )
    taken = []
    for job in lost:
        times = job.workers_lost + 1
        if times >= MAX_WORKERS_LOST:
            error = (
                f"its worker stopped {times} times while running this step (killed, or out of memory on this "
                "input); retry it once the worker has more memory or the input is smaller"
            )
            change = {"state": MediaJob.State.FAILED, "error": error, "finished_at": timezone.now()}
        else:
            change = {"state": MediaJob.State.PENDING, "detail": f"its worker stopped at {job.progress}%; queued again"}
        mine = _mine(job.id, job.attempts).filter(lease_until=job.lease_until)
        if mine.update(**change, workers_lost=times, lease_until=None, updated_at=timezone.now()):
            log.warning("media job %s (%s): %s", job.id, job.kind, change.get("detail") or change.get("error"))
            if change["state"] == MediaJob.State.PENDING:
                taken.append(job)
    return taken


def jobs_unsent() -> list[MediaJob]:
    """Pending jobs that could not be sent to the queue earlier (the broker was down)."""
    return list(MediaJob.objects.filter(state=MediaJob.State.PENDING, unsent_since__isnull=False))


def media_job_reset(*, job_id: int) -> None:
    """Make a job runnable again (bulk reprocessing); its step replaces earlier outputs. Use
    media_job_again instead where a live worker may be running it."""
    MediaJob.objects.filter(id=job_id).update(
        state=MediaJob.State.PENDING,
        progress=0,
        error="",
        detail="",
        started_at=None,
        finished_at=None,
        lease_until=None,
        workers_lost=0,
        rerun=False,
        waiting_for="",
        updated_at=timezone.now(),
    )


def media_job_again(*, job_id: int) -> bool:
    """Something the job reads changed: make it run again, the one rule for that. A job no live worker
    holds is reset to pending (returns True: send it). A job a live worker runs is left to that run
    and marked `rerun` (returns False: nothing to send now): the run's outcome is kept, and as it ends
    the job goes back to pending and its worker sends it (Outcome.AGAIN). So the job never runs twice
    at once, and no change is lost."""
    with transaction.atomic():
        job = MediaJob.objects.select_for_update().get(id=job_id)
        if job_held(job):
            MediaJob.objects.filter(id=job_id).update(rerun=True, updated_at=timezone.now())
            return False
        media_job_reset(job_id=job_id)
    return True
