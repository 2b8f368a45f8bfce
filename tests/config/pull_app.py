"""A WSGI application for tests/config/test_gunicorn_worker.py: each answer names the process that
gave it, and each path waits on something the test controls."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

FLAGS = Path(os.environ.get("PULL_APP_FLAGS", "."))


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
    path = environ["PATH_INFO"]
    if path == "/hold":  # stays in the application until the test lets it go
        (FLAGS / "held").write_text(str(os.getpid()))
        for _ in range(1000):
            if (FLAGS / "release").exists():
                break
            time.sleep(0.01)
        return _answer(start_response, str(os.getpid()))
    if path == "/stream":  # far more than a socket buffers: written only as the client reads
        start_response("200 OK", [("Content-Type", "application/octet-stream")])
        return _chunks(4096)
    if path == "/upload":
        length = environ.get("CONTENT_LENGTH")
        body = environ["wsgi.input"].read(int(length)) if length else environ["wsgi.input"].read()
        return _answer(start_response, str(len(body)))
    return _answer(start_response, str(os.getpid()))


def _answer(start_response: Callable[..., Any], text: str) -> list[bytes]:
    body = text.encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]


def _chunks(n: int) -> Iterator[bytes]:
    chunk = b"\0" * 65536
    for _ in range(n):
        yield chunk
