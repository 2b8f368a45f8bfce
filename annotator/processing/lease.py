"""Leases on running work: a row says until when its worker holds it, and the worker renews that
from a background thread while the work runs. A worker that vanishes (SIGKILL, out of memory, the
machine gone) stops renewing, so once the lease runs out anyone may take the work up again.

Used by media jobs (jobs.py) and release builds (review.releasing.jobs)."""

from __future__ import annotations

import logging
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db import connections
from django.utils import timezone

log = logging.getLogger(__name__)


def lease_seconds() -> int:
    return int(settings.SKYMARK_JOB_LEASE_S)


def lease_end() -> datetime:
    """The end of a lease taken or renewed now."""
    return timezone.now() + timedelta(seconds=lease_seconds())


def lease_live(lease_until: datetime | None) -> bool:
    """Whether a worker holds the lease now (a running row without one predates leases: not held)."""
    return lease_until is not None and lease_until > timezone.now()


@contextmanager
def heartbeat(renew: Callable[[], object], *, name: str) -> Iterator[None]:
    """Call `renew` several times per lease from a background thread while the block runs, so a
    step busy in one long call (ffmpeg, libvips) still keeps its lease."""
    every = max(0.2, lease_seconds() / 4)
    stop = threading.Event()

    def loop() -> None:
        try:
            while not stop.wait(every):
                try:
                    renew()
                except Exception:  # a missed beat is survivable; the next may get through
                    log.warning("lease renewal of %s failed", name, exc_info=True)
        finally:
            connections.close_all()  # this thread's own database connection

    thread = threading.Thread(target=loop, name=f"lease {name}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=every + 30)


@contextmanager
def private_tempdir(folder: Path) -> Iterator[Path]:
    """Run the block with `folder` as the temporary folder of this process (tempfile's default),
    emptied before and removed after. A rerun of the same work empties what a killed run left.
    A worker process runs one task at a time (solo or prefork pool), so the switch is safe."""
    import shutil

    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    before = tempfile.tempdir
    tempfile.tempdir = str(folder)
    try:
        yield folder
    finally:
        tempfile.tempdir = before
        shutil.rmtree(folder, ignore_errors=True)
