"""Serving stored media to people allowed to see it, with HTTP range requests for video seeking.

The views go through DRF only for authentication (session for the browser, token for scripts)."""

from __future__ import annotations

from django.core.cache import cache
from django.http import Http404, HttpRequest
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404
from rest_framework.decorators import api_view, schema

from annotator.access.scopes import access_version, satellite_image_visible, scene_get_visible
from annotator.models import Keyframe, SatelliteImage, Scene
from annotator.serving import serve_stored

# The media views read the scene's video row: fetch it with the scene.
_WITH_VIDEO = Scene.objects.select_related("video")


def _wants_original(request: HttpRequest) -> bool:
    return request.GET.get("original") == "1"


@api_view(["GET"])
@schema(None)
def scene_video(request: HttpRequest, scene_id: int) -> HttpResponseBase:
    """The browser-safe proxy when one was made, else the original (`?original=1` forces it)."""
    video = scene_get_visible(user=request.user, scene_id=scene_id, qs=_WITH_VIDEO).video
    name = video.proxy.name if video.proxy and not _wants_original(request) else video.file.name
    return serve_stored(request, name, download_as=video.original_name if _wants_original(request) else None)


SCENE_ASSETS = {"poster.jpg": "poster", "filmstrip.jpg": "filmstrip_sprite", "filmstrip.vtt": "filmstrip_vtt"}


@api_view(["GET"])
@schema(None)
def scene_asset(request: HttpRequest, scene_id: int, asset: str) -> HttpResponseBase:
    """Poster and filmstrip (sprite + WebVTT thumbnails track whose cues point at the sprite)."""
    video = scene_get_visible(user=request.user, scene_id=scene_id, qs=_WITH_VIDEO).video
    if asset not in SCENE_ASSETS:
        raise Http404("no such asset")
    return serve_stored(request, getattr(video, SCENE_ASSETS[asset]).name)


def _image_for(request: HttpRequest, image_id: int) -> SatelliteImage:
    """An image the user may see; the answer is cached briefly because a map asks per tile."""
    image = get_object_or_404(SatelliteImage, id=image_id)
    version = access_version(user_id=request.user.pk)
    key = f"skymark:image-access:{request.user.pk}:{version}:{image_id}"
    allowed = cache.get(key)
    if allowed is None:
        allowed = satellite_image_visible(user=request.user, image_id=image.id)
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
    # The tiles of an image never change (a new pyramid gets a new prefix).
    return serve_stored(request, f"{image.tiles_prefix}/{tile_path}", max_age=86400)


@api_view(["GET"])
@schema(None)
def keyframe_file(request: HttpRequest, video_id: int, index: int) -> HttpResponseBase:
    frame = get_object_or_404(Keyframe.objects.select_related("video__scene"), video_id=video_id, index=index)
    scene_get_visible(user=request.user, scene_id=frame.video.scene.id)
    return serve_stored(request, frame.image.name)
