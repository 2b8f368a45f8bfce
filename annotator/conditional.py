"""Conditional GET for JSON reads the pages poll: an ETag from the answer's bytes, and 304 Not
Modified, with no body, when the client's If-None-Match still names it."""

from __future__ import annotations

import hashlib
import json

from django.utils.cache import patch_cache_control
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder


def etag_of(data: object) -> str:
    """A strong validator of what `data` renders to. The answer already depends on who asks (facts
    are the author's), and the hash covers whatever the serializer put in, so it cannot go stale
    the way a validator made from a few columns could (a lock, an item's state, a georeference)."""
    raw = json.dumps(data, cls=JSONEncoder, separators=(",", ":"), ensure_ascii=False).encode()
    return '"' + hashlib.blake2b(raw, digest_size=16).hexdigest() + '"'


def conditional(request: Request, response: Response) -> Response:
    """`response` with its ETag, or a bodiless 304 when the client has that version already. Kept
    private and revalidated on every use: the answer is one user's."""
    tag = etag_of(response.data)
    wanted = {t.strip() for t in request.headers.get("If-None-Match", "").split(",")}
    if tag in wanted or f"W/{tag}" in wanted:
        response = Response(status=status.HTTP_304_NOT_MODIFIED)
    response["ETag"] = tag
    patch_cache_control(response, private=True, no_cache=True)
    return response
