"""Streaming stored files to people allowed to see them: HTTP range requests (video seeking,
resumable downloads) in chunks, never a whole file in memory; S3 answers with a signed URL."""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Iterator
from typing import IO, Any

from django.core.files.storage import default_storage
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseRedirect, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.utils.cache import patch_cache_control
from django.utils.http import content_disposition_header

_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")
CHUNK = 256 * 1024


def _chunks(fh: IO[bytes], start: int, length: int) -> Iterator[bytes]:
    try:
        fh.seek(start)
        remaining = length
        while remaining > 0:
            data = fh.read(min(CHUNK, remaining))
            if not data:
                break
            remaining -= len(data)
            yield data
    finally:
        fh.close()


def _parse_range(header: str, size: int) -> tuple[int, int] | None:
    match = _RANGE.match(header.strip())
    if not match or (not match.group(1) and not match.group(2)):
        return None
    first, last = match.group(1), match.group(2)
    if first:
        start, end = int(first), min(int(last) if last else size - 1, size - 1)
    else:
        start, end = max(0, size - int(last)), size - 1
    return (start, end) if start <= end else None


def _on_local_disk(name: str) -> bool:
    try:
        default_storage.path(name)
    except NotImplementedError:
        return False
    return True


def _signed_redirect(name: str, *, download_as: str | None, max_age: int | None) -> HttpResponseBase:
    """A redirect to a signed URL of a private object. The browser may keep the redirect (and the
    object's answer) for `max_age`, but never past half the signature's life."""
    storage: Any = default_storage
    params: dict[str, str] = {}
    if download_as:
        params["ResponseContentDisposition"] = content_disposition_header(True, download_as) or ""
    keep = min(max_age or 0, int(getattr(storage, "querystring_expire", 0)) // 2)
    if keep > 0:
        params["ResponseCacheControl"] = f"private, max-age={keep}"
    response = HttpResponseRedirect(storage.url(name, parameters=params) if params else storage.url(name))
    if keep > 0:
        patch_cache_control(response, private=True, max_age=keep)
    else:
        patch_cache_control(response, private=True, no_store=True)
    return response


def serve_stored(
    request: HttpRequest, name: str | None, *, download_as: str | None = None, max_age: int | None = None
) -> HttpResponseBase:
    """Stream a stored file; honour `Range`; S3 storage answers with a redirect to a short-lived
    signed URL (the object itself is private). `max_age`: browsers may keep the answer that long
    (files that never change, such as tiles)."""
    if not name or not default_storage.exists(name):
        raise Http404("file missing from storage")
    if not _on_local_disk(name):
        return _signed_redirect(name, download_as=download_as, max_age=max_age)
    response = _local(request, name, download_as=download_as)
    if max_age:
        patch_cache_control(response, private=True, max_age=max_age)
    return response


def _local(request: HttpRequest, name: str, *, download_as: str | None) -> HttpResponseBase:
    size = default_storage.size(name)
    content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
    header = request.headers.get("Range")
    if not header:
        response: HttpResponseBase = FileResponse(
            default_storage.open(name, "rb"),
            content_type=content_type,
            as_attachment=bool(download_as),
            filename=download_as or "",
        )
        response["Accept-Ranges"] = "bytes"
        return response
    span = _parse_range(header, size)
    if span is None:
        response = HttpResponse(status=416)
        response["Content-Range"] = f"bytes */{size}"
        return response
    start, end = span
    response = StreamingHttpResponse(
        _chunks(default_storage.open(name, "rb"), start, end - start + 1), status=206, content_type=content_type
    )
    response["Content-Range"] = f"bytes {start}-{end}/{size}"
    response["Content-Length"] = str(end - start + 1)
    response["Accept-Ranges"] = "bytes"
    return response
