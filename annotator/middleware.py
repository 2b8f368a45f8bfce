"""A request body larger than the largest upload Skymark takes (`MAX_UPLOAD_MB`) is answered 413
from its Content-Length, before Django reads a byte of it to memory or to temporary files; an id in
the path too large for the database's 64-bit integers names no row and is answered 404 before a
query would fail on it; a database that cannot be reached (restarting, failing over) is answered
503 with Retry-After instead of a 500 with a traceback."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

from annotator.parsers import INT64_MAX, INT64_MIN


class BodySizeLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit: int = settings.SKYMARK_MAX_UPLOAD_BYTES
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            declared = 0
        if declared > limit:
            message = f"the request is {declared / 2**20:.0f} MB; uploads are limited to {limit // 2**20} MB"
            if request.path.startswith("/api/"):
                return JsonResponse({"detail": message}, status=413)
            return HttpResponse(f"413: {message}.", status=413, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


class PathIdRangeMiddleware:
    """`<int:...>` accepts any run of digits; one past the database's range would raise in the
    query (SQLite: OverflowError, PostgreSQL: out of range), a 500 for what is simply no such object."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> HttpResponse | None:
        if not any(isinstance(v, int) and not INT64_MIN <= v <= INT64_MAX for v in [*args, *kwargs.values()]):
            return None
        if request.path.startswith("/api/"):
            return JsonResponse({"detail": "No such object."}, status=404)
        return HttpResponse("404: no such object.", status=404, content_type="text/plain; charset=utf-8")


log = logging.getLogger(__name__)
DB_RETRY_AFTER_S = 5
DB_UNAVAILABLE = "The database cannot be reached for a moment; try again in a few seconds."


class DatabaseUnavailableMiddleware:
    """The one place a lost database connection becomes a response: pages and APIs (DRF re-raises
    what its handler does not know) answer 503 with Retry-After, which clients retry with backoff.

    The next request reconnects by itself: Django closes a connection that raised once the request
    ends, and CONN_HEALTH_CHECKS replaces a persistent one that went stale while the server was
    away (config/settings/database.py). A write whose COMMIT reached the server before the
    connection dropped may have been applied: creates carry a client key and edits a version, so a
    retry neither duplicates nor overwrites (annotator/marking/services.py)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        # One line, no traceback: an outage of a few seconds would otherwise fill the log.
        log.warning("database unavailable: %s %s: %s", request.method, request.path, str(exception).strip())
        if request.path.startswith("/api/"):
            response: HttpResponse = JsonResponse({"detail": DB_UNAVAILABLE}, status=503)
        else:
            response = HttpResponse(f"503: {DB_UNAVAILABLE}", status=503, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = str(DB_RETRY_AFTER_S)
        return response
