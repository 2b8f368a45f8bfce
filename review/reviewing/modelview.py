"""What the blind page shows: the item's model view, exactly what a model is given.

When the item's model view is rendered (annotator.models.ModelView: the satellite image with its
marks drawn and named, option images, the video segment), the page shows those files. Until then it
shows the scene's video (cut to the item's segment when it has one) and the satellite image, and
draws the item's shapes over it in the browser from `shapes`: the lettered candidates for items
whose options are places or tracks drawn on the image, else the marks named as the question names
them. Nothing here carries the key: lettered candidates go out as letter + geometry only."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse

from annotator.models import Item


@dataclass
class ModelView:
    video_url: str
    image_url: str | None
    # Seconds of the video the question is about, when it names a segment.
    segment: tuple[float, float] | None = None
    image_width: int | None = None
    image_height: int | None = None
    # Rendered files of the item: the page shows them as they are and draws nothing itself.
    has_files: bool = False
    option_images: list[dict[str, str]] = field(default_factory=list)
    shapes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def video_src(self) -> str:
        """The video URL with a media fragment, so the browser plays just the segment."""
        if self.segment and not self.has_files:
            return f"{self.video_url}#t={self.segment[0]:g},{self.segment[1]:g}"
        return self.video_url


def _rendered(item: Item) -> Any:
    """The item's rendered model view (annotator.models.ModelView), or None before it is rendered."""
    view = getattr(item, "model_view", None)  # the reverse one-to-one raises AttributeError when absent
    return view if view is not None and view.state == view.State.SUCCEEDED and view.image else None


def _shapes(provenance: dict[str, Any]) -> list[dict[str, Any]]:
    candidates = provenance.get("candidates")
    if candidates:
        return [{"name": c["letter"], "geometry": c["geometry"]} for c in candidates if c.get("geometry")]
    names = provenance.get("names") or {}
    # Only the marks the question names (Template.shown_roles, provenance["shown"]), as the rendered
    # view draws them: a target's track or the counted instances would give the key away.
    shown = provenance.get("shown")
    marks = provenance.get("marks", [])
    if shown is not None:
        marks = [m for m in marks if m.get("id") in set(shown)]
    return [
        {"name": names.get(str(m["id"]), m.get("label", "")), "geometry": m["geometry"]}
        for m in marks
        if m.get("geometry")
    ]


def model_view_for(*, item: Item, provenance: dict[str, Any] | None = None) -> ModelView:
    """The model view of the item (of a given revision's provenance, when one is passed)."""
    provenance = item.provenance if provenance is None else provenance
    scene = item.scene
    image_ids = [m.get("satellite_image") for m in provenance.get("marks", []) if m.get("satellite_image")]
    image = scene.satellite_images.filter(id=image_ids[0]).first() if image_ids else None
    image = image or scene.satellite_images.order_by("id").first()
    segment = provenance.get("segment_s")
    view = ModelView(
        video_url=reverse("scene-video", args=[scene.id]),
        image_url=reverse("satellite-file", args=[image.id]) if image else None,
        segment=(float(segment[0]), float(segment[1])) if segment and len(segment) == 2 else None,
        image_width=image.width if image else None,
        image_height=image.height if image else None,
    )
    rendered = _rendered(item)
    if rendered is not None:
        # The files a model is given: served by annotator.compiling.files under these names.
        view.has_files = True
        view.image_url = reverse("model-view-file", args=[item.id, "view.jpg"])
        view.video_url = reverse("model-view-file", args=[item.id, "video.mp4"])
        view.option_images = [
            {"option": str(o["option"]), "url": reverse("model-view-file", args=[item.id, f"option-{o['option']}.jpg"])}
            for o in rendered.option_images
        ]
    else:
        view.shapes = _shapes(provenance)
    return view
