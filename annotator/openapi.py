"""The API's OpenAPI description of its failures: the error bodies `annotator/exceptions.py` and DRF
write, a reusable response for each 4xx status, and the AutoSchema that documents them on every
operation they can happen on, so a new endpoint is described correctly without repeating them.

Which statuses an operation can answer follows from how the request is handled, not from a list:
- 400 field errors: the operation reads a body, query or path parameters (serializers, parsers);
- 403: any operation (no or a wrong credential: SessionAuthentication comes first, so DRF answers
  403 rather than 401; a role or scope that does not allow it);
- 404: the path names an object (selectors raise it for objects out of the user's scope, too);
- 409: the object's state forbids it (StaleWrite, Conflict), on writes and reads of an object alike;
- 413: a request body (BoundedJSONParser and upload limits);
- 415: a request body in a media type the operation does not parse.
The token endpoint adds 429 itself (annotator/access/login.py).
"""

from __future__ import annotations

from typing import Any, Literal

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="What went wrong, in a sentence a person can act on.")


class ConflictSerializer(ErrorSerializer):
    current = serializers.JSONField(
        required=False, help_text="For a stale write: the object as it is now, to apply the edit to again."
    )


# A field-error body: {"field": ["message", ...], "non_field_errors": [...]} (nested for nested
# input), or {"detail": "..."} for a body that could not be parsed at all.
FIELD_ERRORS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Field name -> messages; `non_field_errors` for the input as a whole; `detail` when "
    "the body could not be read.",
    "additionalProperties": {},
}

BAD_REQUEST = OpenApiResponse(FIELD_ERRORS_SCHEMA, description="The input is not valid; each field says why.")
UNAUTHENTICATED = OpenApiResponse(ErrorSerializer, description="No or an invalid token.")
FORBIDDEN = OpenApiResponse(
    ErrorSerializer, description="Not logged in, an invalid token, or the user's role does not allow this."
)
NOT_FOUND = OpenApiResponse(ErrorSerializer, description="No such object, or it is not visible to this user.")
CONFLICT = OpenApiResponse(ConflictSerializer, description="The object's state (or version) forbids this now.")
TOO_LARGE = OpenApiResponse(ErrorSerializer, description="The request body is larger than this API takes.")
UNSUPPORTED = OpenApiResponse(ErrorSerializer, description="The body's media type is not one this operation reads.")
THROTTLED = OpenApiResponse(
    ErrorSerializer, description="Too many failed log-ins: locked for the seconds `Retry-After` says."
)

BODY_METHODS = ("POST", "PUT", "PATCH")


class SkymarkAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema, plus the 4xx answers an operation can give (module docstring).
    A status the view documents itself (extend_schema responses) is kept as the view wrote it."""

    def _get_response_bodies(self, direction: Literal["request", "response"] = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for code, response in self._error_responses().items():
            responses.setdefault(code, self._get_response_for_code(response, code, direction=direction))
        return responses

    def _error_responses(self) -> dict[str, OpenApiResponse]:
        has_path_params = "{" in self.path
        reads_input = self.method in BODY_METHODS or has_path_params or bool(self._get_parameters())
        errors: dict[str, OpenApiResponse] = {"403": FORBIDDEN}
        if reads_input:
            errors["400"] = BAD_REQUEST
        if has_path_params:
            errors["404"] = NOT_FOUND
        if reads_input:
            errors["409"] = CONFLICT
        if self.method in BODY_METHODS:
            errors["413"] = TOO_LARGE
            errors["415"] = UNSUPPORTED
        return errors

    def map_parsers(self) -> list[Any]:
        # A body with a file is sent as multipart/form-data only: JSON cannot carry the file.
        media_types = super().map_parsers()
        serializer = self.get_request_serializer()
        if isinstance(serializer, type):
            serializer = serializer()
        fields = getattr(serializer, "fields", {})
        if any(_is_file(field) for field in fields.values()) and "multipart/form-data" in media_types:
            return ["multipart/form-data"]
        return media_types


def _is_file(field: serializers.Field) -> bool:
    return isinstance(field, serializers.FileField) or (
        isinstance(field, serializers.ListField) and isinstance(field.child, serializers.FileField)
    )
