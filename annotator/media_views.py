"""Serving stored media to people allowed to see it, with HTTP range requests for video seeking.

The views go through DRF only for authentication (session for the browser, token for scripts)."""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Iterator
from typing import IO

from django.core.cache import cache
from django.core.files.storage import default_storage
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseRedirect, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404
from rest_framework.decorators import api_view, schema

from annotator import selectors
from annotator.models import Keyframe, SatelliteImage

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


def serve_stored(request: HttpRequest, name: str | None, *, download_as: str | None = None) -> HttpResponseBase:
    """Stream a stored file; honour `Range`; S3 storage answers with a short-lived signed URL."""
    if not name or not default_storage.exists(name):
        raise Http404("file missing from storage")
    try:
        default_storage.path(name)
    except NotImplementedError:
        return HttpResponseRedirect(default_storage.url(name))
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


def _wants_original(request: HttpRequest) -> bool:
    return request.GET.get("original") == "1"


@api_view(["GET"])
@schema(None)
def scene_video(request: HttpRequest, scene_id: int) -> HttpResponseBase:
    """The browser-safe proxy when one was made, else the original (`?original=1` forces it)."""
    video = selectors.scene_get(user=request.user, scene_id=scene_id).video
    name = video.proxy.name if video.proxy and not _wants_original(request) else video.file.name
    return serve_stored(request, name, download_as=video.original_name if _wants_original(request) else None)


SCENE_ASSETS = {"poster.jpg": "poster", "filmstrip.jpg": "filmstrip_sprite", "filmstrip.vtt": "filmstrip_vtt"}


@api_view(["GET"])
@schema(None)
def scene_asset(request: HttpRequest, scene_id: int, asset: str) -> HttpResponseBase:
    """Poster and filmstrip (sprite + WebVTT thumbnails track whose cues point at the sprite)."""
    video = selectors.scene_get(user=request.user, scene_id=scene_id).video
    if asset not in SCENE_ASSETS:
        raise Http404("no such asset")
    return serve_stored(request, getattr(video, SCENE_ASSETS[asset]).name)


def _image_for(request: HttpRequest, image_id: int) -> SatelliteImage:
    """An image the user may see; the answer is cached briefly because a map asks per tile."""
    image = get_object_or_404(SatelliteImage, id=image_id)
    key = f"skymark:image-access:{request.user.pk}:{image_id}"
    allowed = cache.get(key)
    if allowed is None:
        allowed = selectors.scenes_for_user(user=request.user).filter(satellite_images=image).exists()
        cache.set(key, allowed, 60)
    if not allowed:
        raise Http404("no such image")
    return image


@api_view(["GET"])
@schema(None)
def satellite_file(request: HttpRequest, image_id: int) -> HttpResponseBase:
    """The 8-bit display rendering when there is one, else the file; `?original=1` downloads the original."""
    image = _image_for(request, image_id)
    if _wants_original(request):
        return serve_stored(request, image.file.name, download_as=image.original_name)
    return serve_stored(request, image.display.name if image.display else image.file.name)


@api_view(["GET"])
@schema(None)
def satellite_tile(request: HttpRequest, image_id: int, tile_path: str) -> HttpResponseBase:
    image = _image_for(request, image_id)
    if not image.tiles_prefix or ".." in tile_path.split("/") or tile_path.startswith("/"):
        raise Http404("no such tile")
    response = serve_stored(request, f"{image.tiles_prefix}/{tile_path}")
    response["Cache-Control"] = "private, max-age=86400"  # tiles of an image never change
    return response


@api_view(["GET"])
@schema(None)
def keyframe_file(request: HttpRequest, video_id: int, index: int) -> HttpResponseBase:
    frame = get_object_or_404(Keyframe.objects.select_related("video__scene"), video_id=video_id, index=index)
    selectors.scene_get(user=request.user, scene_id=frame.video.scene.id)
    return serve_stored(request, frame.image.name)
