"""The API's JSON parser, with limits: a body larger than `SKYMARK_MAX_JSON_BYTES` answers 413
before it is read, JSON nested deeper than `MAX_DEPTH` non-finite numbers and integers past 64 bits answer 400, each
with a sentence. Django's own DATA_UPLOAD_MAX_MEMORY_SIZE does not guard DRF, which reads the
request stream itself."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import JSONParser

# Marks, items and settings are a few levels deep; GeoJSON geometry with holes is four.
MAX_DEPTH = 32


class RequestTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"


def _refuse_constant(name: str) -> float:
    raise ParseError(f"JSON parse error - {name} is not a number this API takes")


def _depth_ok(value: Any) -> bool:
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return False
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return True


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ParseError(f"JSON parse error - {text[:20]} is out of range")
    return number


# Ids, counts and versions are 64-bit in the database; a larger one would fail there instead.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _int64(text: str) -> int:
    number = int(text)
    if not INT64_MIN <= number <= INT64_MAX:
        raise ParseError(f"JSON parse error - {text[:24]} is out of range for a 64-bit integer")
    return number


class BoundedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        limit: int = settings.SKYMARK_MAX_JSON_BYTES
        request = (parser_context or {}).get("request")
        declared = int(request.META.get("CONTENT_LENGTH") or 0) if request is not None else 0
        if declared > limit:
            raise RequestTooLarge(f"the request body is {declared} bytes; this API takes at most {limit} bytes of JSON")
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise RequestTooLarge(f"the request body is over {limit} bytes; this API takes at most {limit} of JSON")
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            data = json.loads(
                raw.decode(encoding), parse_constant=_refuse_constant, parse_float=_finite, parse_int=_int64
            )
        except RecursionError:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
        if not _depth_ok(data):
            raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels")
        return data


def query_id(text: str) -> int | None:
    """An id from a query string: ASCII digits within 64 bits, else None ("²" is a digit to
    str.isdigit() but not to int(), and 2**64 names no row)."""
    if not (text.isascii() and text.isdigit()):
        return None
    number = int(text)
    return number if number <= INT64_MAX else None
