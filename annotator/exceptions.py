"""Errors services raise, and how the API turns them into responses a person can act on."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler


class StaleWrite(Exception):  # noqa: N818 - the name reads as what happened
    """A write carried an old version; `current` is the object as it is now."""

    def __init__(self, current: Any):
        super().__init__("stale write")
        self.current = current


class Conflict(Exception):  # noqa: N818
    """The request is valid but the object's state forbids it (e.g. reviewing a draft)."""


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, StaleWrite):
        # Imported here: the serializer's module imports models that import this one.
        from annotator.marking.serializers import MarkOutputSerializer

        body = {
            "detail": "This mark was changed by someone else; reload it and apply your edit again.",
            "current": MarkOutputSerializer(exc.current).data,
        }
        return Response(body, status=status.HTTP_409_CONFLICT)
    if isinstance(exc, Conflict):
        return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        exc = exceptions.ValidationError(detail)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    return exception_handler(exc, context)
