"""PostgreSQL, with the health check made without a round trip while the connection is quiet.

Django's health check (CONN_HEALTH_CHECKS) sends `SELECT 1` before the first query of every
request, so that a connection the server closed since the last request (a restart, a terminated
backend, a proxy's idle timeout) is replaced instead of failing that request. Under the 8-client
annotation load that was one round trip of the four a mark POST makes, five a unit of 27
(bench/README.md, "The health check without a round trip").

A connection between requests has nothing in flight, so the server has nothing to say on it; when
it closes the connection it says so first (a FATAL notice, then the end of the stream), and the
socket becomes readable. So: if the socket has nothing to read, the connection is as healthy as
`SELECT 1` would find it and no query is sent; if it has anything (the notice, the end, or a
message we did not expect), Django's `SELECT 1` decides as before. What neither can see quickly,
a peer gone without a word, `SELECT 1` would only find after TCP's timeout too.
"""

from __future__ import annotations

import select
from typing import Any

from django.db.backends.postgresql import base

_READABLE = select.POLLIN | select.POLLPRI | select.POLLERR | select.POLLHUP | select.POLLNVAL


def connection_quiet(connection: Any) -> bool:
    """Whether a psycopg connection's socket has nothing to read and no error (poll, no waiting)."""
    try:
        fd = connection.fileno()
    except Exception:  # a closed or broken connection has no socket
        return False
    poller = select.poll()
    poller.register(fd, _READABLE)
    return not poller.poll(0)


class DatabaseWrapper(base.DatabaseWrapper):
    def close_if_health_check_failed(self) -> None:
        if (
            self.connection is not None
            and self.health_check_enabled  # type: ignore[attr-defined]  # Django sets both untyped
            and not self.health_check_done  # type: ignore[has-type]
            and not self.pool
            and connection_quiet(self.connection)
        ):
            self.health_check_done = True
            return
        super().close_if_health_check_failed()
