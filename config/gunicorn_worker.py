"""The web server's worker (config/gunicorn.py names it): gunicorn's threaded worker, which takes a
new connection only while none of its requests is waiting for or running in the application.

Why. Every API request is CPU work under one interpreter lock per process. With four processes of
two threads on two cores, eight requests ran at once, each in turns of half a millisecond, and a
process took connections whatever it was doing: a request's latency was the work of all the others
that happened to be in its process. gunicorn's sync worker avoids that (a busy process does not
accept, so the next connection goes to whichever process is free first, one queue in the kernel for
all of them, first come first served), but it has one thread: a browser's video that stops reading
a range response holds the process until its timeout. This worker pulls like the sync worker and
keeps the threads: a response the application has returned streams in its own thread while the
process takes the next connection. With one process per core, against four processes of two
threads, in the same sitting (bench/README.md, "One queue for the web processes"): 8-client scene
and list reads 1.3-1.5x the requests per second, p99 about half; the annotation unit 1.07x units/s
embedded and 1.3-1.4x on PostgreSQL, its p99 0.6-0.75x.

What holds the gate (a process accepts only while nothing does): a connection from its accept until
the application returns its response. A connection that sends nothing at first (a browser's
preconnect) lets go of it after QUIET_S, and so does a request with a large body (an upload, read
at the client's pace) when it reaches the application: both wait on the network, not the CPU, and
run beside the next request as a plain threaded worker runs them. Keep-alive is off
(config/gunicorn.py): a kept-alive connection would bring its next request to the process it is
tied to, busy or not.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from gunicorn.workers.gthread import ThreadWorker

# seconds a new connection may be silent and still hold the gate; a client sends its request with
# the handshake's last packet, so anything slower is a client that connected ahead of time
QUIET_S = 0.05
# bytes of request body above which a request reads at the network's pace: uploads. The workspace's
# JSON bodies are a few KB (a JSON body may be up to MAX_JSON_KB; one over this runs beside the next
# request rather than before it)
LARGE_BODY = 1 << 20


class PullWorker(ThreadWorker):
    """A threaded worker that accepts only when idle (the module says why)."""

    wsgi: Callable[..., Iterable[bytes]]  # set by gunicorn's load_wsgi

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._holding: set[int] = set()  # ids of the connections that hold the gate
        self._holding_lock = threading.Lock()
        self._local = threading.local()  # the connection a request thread is serving

    # -- the gate (the main thread opens and closes it; request threads let go and wake it) --------

    def set_accept_enabled(self, enabled: bool) -> None:
        super().set_accept_enabled(enabled and not self._holding)

    def accept(self, listener: Any) -> None:
        super().accept(listener)  # accepts one connection and queues it (enqueue_req)
        super().set_accept_enabled(not self._holding)

    def enqueue_req(self, conn: Any) -> None:
        with self._holding_lock:
            self._holding.add(id(conn))
        super().enqueue_req(conn)

    def _let_go(self, conn: Any, wake: bool) -> None:
        if conn is None:
            return
        with self._holding_lock:
            if id(conn) not in self._holding:
                return
            self._holding.discard(id(conn))
        if wake:  # from a request thread: the main loop looks at the gate again
            self.method_queue.defer(lambda: None)

    def finish_request(self, conn: Any, fs: Any) -> None:
        self._let_go(conn, wake=False)
        super().finish_request(conn, fs)

    # -- in the request threads ------------------------------------------------------------------------

    def handle(self, conn: Any) -> Any:
        if not conn.initialized and not conn.data_ready and not conn.wait_for_data(QUIET_S):
            self._let_go(conn, wake=True)
        return super().handle(conn)

    def handle_request(self, req: Any, conn: Any) -> Any:
        self._local.conn = conn
        return super().handle_request(req, conn)

    def load_wsgi(self) -> None:
        super().load_wsgi()
        self.wsgi = self._gated(self.wsgi)

    def _gated(self, app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
        def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
            conn = getattr(self._local, "conn", None)  # None on a path that bypasses handle_request
            if _large_body(environ):
                self._let_go(conn, wake=True)
            try:
                return app(environ, start_response)
            finally:  # the response, built; a stream is written after this, without the gate
                self._let_go(conn, wake=True)

        return application


def _large_body(environ: dict[str, Any]) -> bool:
    if environ.get("HTTP_TRANSFER_ENCODING", "").lower() == "chunked":
        return True
    try:
        return int(environ.get("CONTENT_LENGTH") or 0) > LARGE_BODY
    except ValueError:
        return False
