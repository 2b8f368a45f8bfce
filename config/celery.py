"""The Celery application; workers start with `celery -A config worker`.

Every worker also looks after work whose worker vanished: on start and then every half lease it
sends again the jobs, release builds and model views whose lease ran out, and the work the broker
could not take earlier (it was down). No beat process is needed: any running worker does it, and the database
decides which one takes each job. The same loop deletes expired sessions once an hour (several workers doing
it at once delete nothing twice)."""

import logging
import os
import threading
import time

from celery import Celery
from celery.signals import worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# One BLAS thread per process unless the deployment says otherwise: workers already run a process per core
# (scripts/serve.sh, compose), and numpy's OpenBLAS would add a thread per core to each, which spin-wait for
# one another. Measured on 2 shared cores: CVAA's exact feature search (media_tools/cvaa/matching.py) took
# 0.34 s of CPU at map scale 1 with two threads against 0.27 s with one, and a test-pattern keyframe's whole
# placement 0.25-0.37 s against 0.17-0.20 s (bench/README.md). Set before anything imports numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

app = Celery("skymark")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Each stage keeps its Celery entry points in its own tasks.py.
app.autodiscover_tasks(["annotator.processing", "annotator.compiling", "annotator.marking.assist", "review.releasing"])

log = logging.getLogger(__name__)
_stop = threading.Event()
SESSIONS_CLEAR_EVERY_S = 3600.0


def recover_once() -> int:
    """Send again what vanished workers and an unreachable broker left; returns how many."""
    from annotator.compiling.tasks import views_recover
    from annotator.processing.tasks import jobs_recover
    from review.releasing.tasks import releases_recover

    return jobs_recover() + releases_recover() + views_recover()


def sessions_clear_when_due(due: float, now: float) -> float:
    """Delete expired sessions if `due` (a monotonic time) has come; returns when next to."""
    if now < due:
        return due
    from importlib import import_module

    from django.conf import settings

    # as Django's `clearsessions` does it: the session engine's own store deletes the expired rows
    import_module(settings.SESSION_ENGINE).SessionStore.clear_expired()
    return now + SESSIONS_CLEAR_EVERY_S


def _recover_loop(every: float) -> None:
    from django.db import connections

    sessions_due = 0.0
    try:
        while True:
            try:
                if sent := recover_once():
                    log.warning("sent again %d job(s) whose worker vanished or that were never queued", sent)
                sessions_due = sessions_clear_when_due(sessions_due, time.monotonic())
            except Exception:  # the database or broker is down: try again next round
                log.warning("looking for lost jobs failed", exc_info=True)
            if _stop.wait(every):
                return
    finally:
        connections.close_all()


@worker_ready.connect
def _start_recovery(**_kwargs: object) -> None:
    from django.conf import settings

    every = max(0.5, settings.SKYMARK_JOB_LEASE_S / 2)
    _stop.clear()
    threading.Thread(target=_recover_loop, args=(every,), name="recover lost jobs", daemon=True).start()


@worker_shutdown.connect
def _stop_recovery(**_kwargs: object) -> None:
    _stop.set()
