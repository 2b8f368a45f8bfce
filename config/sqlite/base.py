"""SQLite for the embedded default, with writers queued by the kernel instead of busy-waiting.

SQLite has one write lock. When two transactions want it, the loser's busy handler sleeps and
retries with growing pauses (1 ms up to 100 ms each), so a few annotators autosaving together
see saves take hundreds of milliseconds. Here every transaction first takes an exclusive flock
on a file beside the database (blocking: the kernel wakes the next waiter the moment the lock is
released, across gunicorn's processes and the worker too), then BEGIN IMMEDIATE, and releases it
at commit or rollback. Statements outside a transaction (autocommit) are unchanged.
"""

from __future__ import annotations

import fcntl
import os
from typing import Any

from django.db.backends.sqlite3 import base, operations


class DatabaseWrapper(base.DatabaseWrapper):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._writer_fd: int | None = None

    def _writers_path(self) -> str:
        return f"{self.settings_dict['NAME']}.writers"

    def _writer_lock(self) -> None:
        if self._writer_fd is None and not self.is_in_memory_db():
            fd = os.open(self._writers_path(), os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._writer_fd = fd

    def _writer_unlock(self) -> None:
        if self._writer_fd is not None:
            fd, self._writer_fd = self._writer_fd, None
            os.close(fd)  # closing the descriptor releases the flock

    def _start_transaction_under_autocommit(self) -> None:
        self._writer_lock()
        try:
            super()._start_transaction_under_autocommit()  # type: ignore[misc]
        except BaseException:
            self._writer_unlock()
            raise

    def _commit(self) -> None:
        try:
            super()._commit()  # type: ignore[misc]
        finally:
            self._writer_unlock()

    def _rollback(self) -> None:
        try:
            super()._rollback()  # type: ignore[misc]
        finally:
            self._writer_unlock()

    def _close(self) -> None:
        try:
            super()._close()  # type: ignore[misc]
        finally:
            self._writer_unlock()


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(self, style: Any, tables: Any, *, reset_sequences: bool = False, allow_cascade: bool = False) -> Any:
        """Emptying the whole database (`manage.py flush`, test teardown) passes the row guards that
        keep frozen releases unchanged: SQLite empties tables with DELETE, which fires them, while
        PostgreSQL's TRUNCATE does not. The guards are dropped for the flush and made again after."""
        statements = super().sql_flush(style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        if not statements:
            return statements
        with self.connection.cursor() as cursor:
            cursor.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
            triggers = [(name, sql) for name, sql in cursor.fetchall() if sql]
        return [f'DROP TRIGGER "{name}"' for name, _ in triggers] + list(statements) + [sql for _, sql in triggers]


DatabaseWrapper.ops_class = DatabaseOperations
