"""Serving an item's model view (the files a model is given) to the people who may see the item:
its author, admins, and reviewers once it is submitted. Range requests work as for scene media."""

from __future__ import annotations

from django.http import Http404, HttpRequest
from django.http.response import HttpResponseBase
from rest_framework.decorators import api_view, schema

from annotator.access.scopes import item_get_with_view
from annotator.serving import serve_stored


@api_view(["GET"])
@schema(None)
def model_view_file(request: HttpRequest, item_id: int, name: str) -> HttpResponseBase:
    """view.jpg (the satellite image with the item's marks), option-<X>.jpg (one per lettered
    option), video.mp4 (the item's segment, or the scene's whole video for items about all of it)."""
    item = item_get_with_view(user=request.user, item_id=item_id)
    view = getattr(item, "model_view", None)
    if view is None or view.state != view.State.SUCCEEDED:
        raise Http404("the model view is not rendered yet")
    if name == "view.jpg":
        return serve_stored(request, view.image.name)
    if name == "video.mp4":
        if view.video:
            return serve_stored(request, view.video.name)
        video = item.scene.video
        return serve_stored(request, video.proxy.name if video.proxy else video.file.name)
    for option in view.option_images:
        if name == f"option-{option['option']}.jpg":
            return serve_stored(request, option["file"])
    raise Http404("no such file in this model view")
