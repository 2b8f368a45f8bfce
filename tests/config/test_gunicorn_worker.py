"""config/gunicorn_worker.py served by gunicorn itself, over sockets: a process that has a request in
the application takes no connection (the next goes to a free process), and what waits on the
network (a stream the client stopped reading, a connection that has sent nothing yet, an upload at
the client's pace) does not keep a process from serving."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.probe import ROOT

WORKER = "config.gunicorn_worker.PullWorker"
# Below the 5 s gunicorn's threads wait for a silent connection's first bytes: an answer that took
# longer would have waited for that, not been served beside it.
ANSWER_S = 4.0


@contextmanager
def served(flags: Path, workers: int) -> Iterator[int]:
    """gunicorn with the worker and tests/config/pull_app.py on a socket bound here; its port."""
    listener = socket.create_server(("127.0.0.1", 0), backlog=64)
    port = listener.getsockname()[1]
    cmd = [sys.executable, "-m", "gunicorn", "--worker-class", WORKER, "-w", str(workers), "--threads", "4",
           "--keep-alive", "0", "--bind", f"fd://{listener.fileno()}", "tests.config.pull_app:application"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PULL_APP_FLAGS": str(flags)}
    with open(flags / "gunicorn.log", "wb") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, pass_fds=[listener.fileno()], stdout=log, stderr=log)
    listener.close()
    try:
        get(port, "/pid", timeout=30)  # the first worker has booted
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def get(port: int, path: str, timeout: float = ANSWER_S) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        return conn.getresponse().read().decode()
    finally:
        conn.close()


def _wait_for(path: Path) -> str:
    for _ in range(1000):
        if path.exists() and path.read_text():
            return path.read_text()
        time.sleep(0.01)
    raise AssertionError(f"{path.name} never appeared")


def test_a_process_with_a_request_in_the_application_takes_no_connection(tmp_path: Path) -> None:
    with served(tmp_path, workers=2) as port:
        held: list[str] = []
        holder = threading.Thread(target=lambda: held.append(get(port, "/hold", timeout=30)))
        holder.start()
        busy_pid = _wait_for(tmp_path / "held")
        # Twelve connections in a row: a threaded worker that accepted regardless would answer
        # about half of them from the busy process.
        answered = [get(port, "/pid") for _ in range(12)]
        (tmp_path / "release").touch()
        holder.join(timeout=30)
    assert busy_pid not in answered
    assert held == [busy_pid]


def test_a_stream_the_client_stopped_reading_does_not_hold_the_process(tmp_path: Path) -> None:
    with served(tmp_path, workers=1) as port:
        reader = socket.create_connection(("127.0.0.1", port))
        reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        reader.sendall(b"GET /stream HTTP/1.1\r\nHost: test\r\n\r\n")
        assert reader.recv(12) == b"HTTP/1.1 200"  # the stream has begun; nothing more is read
        try:
            assert get(port, "/pid").isdigit()
        finally:
            reader.close()


def test_a_connection_that_sends_nothing_yet_does_not_hold_the_process(tmp_path: Path) -> None:
    with served(tmp_path, workers=1) as port:
        silent = socket.create_connection(("127.0.0.1", port))  # as a browser's preconnect
        time.sleep(0.3)  # accepted by now
        try:
            assert get(port, "/pid").isdigit()
            silent.sendall(b"GET /pid HTTP/1.1\r\nHost: test\r\n\r\n")  # and it is still served
            assert silent.recv(12) == b"HTTP/1.1 200"
        finally:
            silent.close()


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_an_upload_read_at_the_clients_pace_does_not_hold_the_process(tmp_path: Path, chunked: bool) -> None:
    size = 4 << 20
    with served(tmp_path, workers=1) as port:
        uploader = socket.create_connection(("127.0.0.1", port))
        length = b"Transfer-Encoding: chunked" if chunked else b"Content-Length: %d" % size
        uploader.sendall(b"POST /upload HTTP/1.1\r\nHost: test\r\n" + length + b"\r\n\r\n")
        body = b"x" * size
        frame = (lambda part: b"%x\r\n%s\r\n" % (len(part), part)) if chunked else (lambda part: part)
        uploader.sendall(frame(body[:1000]))
        time.sleep(0.3)  # the request is in the application, reading its body
        try:
            assert get(port, "/pid").isdigit()
            uploader.sendall(frame(body[1000:]) + (b"0\r\n\r\n" if chunked else b""))
            uploader.settimeout(30)
            answer = uploader.makefile("rb").read()
        finally:
            uploader.close()
    assert answer.startswith(b"HTTP/1.1 200")
    assert answer.endswith(b"\r\n\r\n" + str(size).encode())
