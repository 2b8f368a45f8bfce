"""Real Celery worker processes for tests that kill them: start one on the test's database, media
folder and broker (the filesystem transport, or Redis), wait on rows, SIGKILL it mid-job.
A test module takes the `workers` fixture with `from tests.workers import workers_fixture`."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.db import connection

from config.celery import app as celery_app

# Redis for the tests that run on it (a database of its own); the machine's Redis when it runs.
TEST_REDIS_URL = os.environ.get("SKYMARK_TEST_REDIS_URL", "redis://127.0.0.1:6379/7")
# Every key this test run puts in Redis starts with this, so test runs of other checkouts sharing the
# same Redis database never take each other's messages.
SESSION_PREFIX = f"skymark-test-{uuid.uuid4().hex[:12]}:"
# A short lease, so a killed worker's job is taken up again within seconds.
LEASE_S = 4


def database_url() -> str:
    """The URL of the database this test runs on (pytest-django's test database)."""
    db = connection.settings_dict
    if db["ENGINE"] in ("config.sqlite", "django.db.backends.sqlite3"):
        return f"sqlite:///{Path(db['NAME']).resolve()}"
    user = db.get("USER") or ""
    auth = f"{user}:{db['PASSWORD']}@" if db.get("PASSWORD") else (f"{user}@" if user else "")
    return f"postgres://{auth}{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"


def redis_reachable(url: str) -> bool:
    parts = urlparse(url)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 6379), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextmanager
def broker_of_this_process(url: str | None) -> Iterator[None]:
    """Send this process's tasks where the test's workers listen: Redis at `url` with this run's
    key prefix, or (`url` None) the filesystem transport in the data folder, also when the suite
    itself runs on Redis (CI), where this process would otherwise keep sending to Redis."""
    from config import env
    from config.settings.celery import filesystem_transport_options

    if url is None and not env.REDIS_URL:
        yield
        return
    conf = celery_app.conf
    old = (conf.broker_url, conf.broker_transport_options)
    if url is None:
        conf.broker_url = "filesystem://localhost//"
        conf.broker_transport_options = filesystem_transport_options(env.BROKER_DIR)
    else:
        conf.broker_url = url
        conf.broker_transport_options = {
            "visibility_timeout": settings.SKYMARK_LONGEST_TASK_S + 600,
            "global_keyprefix": SESSION_PREFIX,
        }
    celery_app._after_fork()  # drop pooled connections to the old broker
    try:
        yield
    finally:
        conf.broker_url, conf.broker_transport_options = old
        celery_app._after_fork()


class Workers:
    """Starts `celery -A config worker` processes one after the other; stops what is left."""

    def __init__(self, tmp_path: Path, env: dict[str, str]) -> None:
        self.tmp_path, self.env, self.procs = tmp_path, env, []  # type: ignore[var-annotated]

    def start(self, queues: str = "media,gpu,views") -> subprocess.Popen:
        n = len(self.procs)
        log = (self.tmp_path / f"worker{n}.log").open("wb")
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "-Q", queues,
             "-l", "info", "--without-gossip", "--without-mingle", "--without-heartbeat", "-n", f"w{n}@%h"],
            cwd=settings.BASE_DIR, env=self.env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        self.procs.append(proc)
        return proc

    def start_ready(self, queues: str = "media,gpu,views") -> subprocess.Popen:
        """Start a worker and wait until it consumes (its log says so), so work sent next is not
        waiting on a slow start."""
        proc = self.start(queues)
        log = self.tmp_path / f"worker{len(self.procs) - 1}.log"
        wait_for(f"worker {len(self.procs) - 1} to be ready", lambda: " ready." in log.read_text(errors="replace"))
        return proc

    def kill(self, proc: subprocess.Popen) -> None:
        """SIGKILL: the worker gets no chance to clean up, acknowledge or record anything."""
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)

    def kill_when(self, proc: subprocess.Popen, what: str, check: Callable[[], Any]) -> None:
        """SIGKILL at a moment `check` holds: wait until it does, freeze the worker (SIGSTOP; its
        pool is solo, so nothing of it runs on), check again and kill it frozen, or let it go on and
        wait again. Killed right after a check instead, a fast worker had sometimes finished what
        the check saw before the signal came."""
        while True:
            wait_for(what, check)
            proc.send_signal(signal.SIGSTOP)
            if check():
                self.kill(proc)
                return
            proc.send_signal(signal.SIGCONT)

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()

    def logs(self) -> str:
        return "\n".join(p.read_text()[-3000:] for p in sorted(self.tmp_path.glob("worker*.log")))


@pytest.fixture(params=["filesystem", "redis"], name="workers")
def workers_fixture(request: pytest.FixtureRequest, tmp_path: Path, settings: Any) -> Iterator[Workers]:
    """Worker processes on the test's database and media, on the filesystem broker or on Redis
    (skipped, saying why, when Redis cannot be reached)."""
    redis = TEST_REDIS_URL if request.param == "redis" else None
    if redis and not redis_reachable(redis):
        pytest.skip(f"Redis is not reachable at {redis} (set SKYMARK_TEST_REDIS_URL to one that is)")
    settings.SKYMARK_JOB_LEASE_S = LEASE_S
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "SECRET_KEY": "test",
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "SKYMARK_JOB_LEASE_S": str(LEASE_S),
        **({"REDIS_URL": redis, "SKYMARK_BROKER_KEY_PREFIX": SESSION_PREFIX} if redis else {}),
    }
    if not redis:
        env.pop("REDIS_URL", None)
    with broker_of_this_process(redis):
        _forget_messages(redis)
        pool = Workers(tmp_path, env)
        try:
            yield pool
        finally:
            pool.stop_all()
            _forget_messages(redis)
            print(pool.logs())


def _forget_messages(redis: str | None) -> None:
    """Messages left by earlier tests name rows that do not exist here: purge the queues and, on
    Redis, every key of this run (with the messages a killed worker never acknowledged, which Redis
    would hand out again after the visibility timeout)."""
    celery_app.control.purge()
    if redis:
        import redis as redis_client

        client = redis_client.Redis.from_url(redis)
        for key in client.scan_iter(f"{SESSION_PREFIX}*"):  # queues, bindings, unacked messages
            client.delete(key)


def wait_for(what: str, check: Callable[[], Any], timeout: float = 300) -> Any:
    """Poll `check` until it returns something truthy; fail naming `what` after `timeout` s (a
    worker starting on a loaded 2-core machine has taken two minutes to be ready)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.1)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")
