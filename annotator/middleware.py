"""A request body larger than the largest upload Skymark takes (`MAX_UPLOAD_MB`) is answered 413
from its Content-Length, before Django reads a byte of it to memory or to temporary files."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse


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
