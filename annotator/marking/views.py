"""The annotation workspace page: video and satellite map on one time cursor."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_sameorigin

from annotator.access.scopes import may_annotate
from annotator.compiling.qa import registered_tasks
from annotator.intake.selectors import scene_get
from annotator.marking.labels import label_set
from annotator.models import SatelliteImage
from annotator.parsers import query_id


def image_config(image: SatelliteImage) -> dict[str, Any]:
    """What the map needs to show one satellite image (its own pixel projection and tile pyramid)
    and what the image switcher says about it: name, size, ground sample distance, georeference."""
    browser = (image.georef or {}).get("browser")
    tiles = None
    if image.tiles_prefix:
        tiles = {
            "url": reverse("satellite-tile", args=[image.id, "TILE"]),
            "size": image.tile_size,
            "format": image.tile_format or "jpg",
        }
    return {
        "id": image.id,
        "name": image.original_name,
        "width": image.width,
        "height": image.height,
        "url": reverse("satellite-file", args=[image.id]),
        "tiles": tiles,
        "georef": browser,
        "gsd_m": browser.get("m_per_px") if browser else None,
        "georef_kind": image.georef_kind,
        "georef_label": image.get_georef_kind_display() if image.georef_kind else "",
        "rms_m": image.georef_rms_m,
        "note": image.provenance_note,
    }


@xframe_options_sameorigin  # the review pages embed it read-only (?embed=1) beside the decision
@login_required
def workspace(request: HttpRequest, scene_id: int) -> HttpResponse:
    """Editable for an annotator assigned to the scene, read-only for everyone else who may see
    it (reviewers, admins). Reviewer feedback on rejected items comes from the review app's
    template tag, so this stage does not depend on review. A scene with several satellite images
    opens on `?image=ID` (else its first); the page switches between them without reloading."""
    scene = scene_get(user=request.user, scene_id=scene_id)
    images = list(scene.satellite_images.order_by("id"))
    wanted = query_id(request.GET.get("image", ""))
    image = next((i for i in images if i.id == wanted), images[0] if images else None)
    return render(
        request,
        "annotator/workspace.html",
        {
            "scene": scene,
            "image": image,
            "images": [image_config(i) for i in images],
            "editable": may_annotate(user=request.user, scene=scene),
            "labels": label_set(project=scene.project),
            "tasks": registered_tasks(),
        },
    )
