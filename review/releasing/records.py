"""The frozen form of items: the record each release file is written from, and the media files a
release ships (paths inside the release, relative to its root)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Prefetch, QuerySet

from annotator.compiling.catalog import TASK_DIMENSION
from annotator.models import Item, SatelliteImage, Scene
from media_tools.geo import GeoReference
from review.models import Review


@dataclass
class ReleaseInputs:
    records: list[dict[str, Any]]
    media: dict[str, str]  # path in the release -> storage name of the file to copy
    georefs: dict[int, dict[str, Any]]  # satellite image id -> georeference (for GeoJSON)
    human: list[dict[str, Any]] = field(default_factory=list)  # blind answers: id, reviewer, answer
    scenes: list[dict[str, Any]] = field(default_factory=list)  # name, license, attribution, location


def _ext(name: str, default: str) -> str:
    tail = name.rsplit("/", 1)[-1]
    return tail.rsplit(".", 1)[-1].lower() if "." in tail else default


def _video_path(scene: Scene) -> tuple[str, str]:
    video = scene.video
    return f"media/videos/{video.sha256}.{_ext(video.original_name, 'mp4')}", str(video.file.name)


def _image_path(image: SatelliteImage) -> tuple[str, str]:
    # What a model is shown: the 8-bit display rendering when the original is not (16-bit, 4-band).
    stored = str(image.display.name if image.display else image.file.name)
    return f"media/satellite/{image.sha256}.{_ext(stored, 'png')}", stored


def items_for_release(qs: QuerySet[Item]) -> QuerySet[Item]:
    return qs.select_related("scene__video").prefetch_related(
        Prefetch("scene__satellite_images", queryset=SatelliteImage.objects.order_by("id")),
        Prefetch("reviews", queryset=Review.objects.order_by("id")),
    )


def item_record(item: Item, *, video: str, images: list[str]) -> dict[str, Any]:
    scene = item.scene
    return {
        "id": item.uid,
        "task": item.task,
        "dimension": TASK_DIMENSION[item.task],
        "question": item.question,
        "options": item.options,
        "answer": item.answer,
        "answer_format": item.answer_format,
        "scene": scene.name,
        "media": {"video": video, "images": images},
        "video": {
            "name": scene.video.original_name,
            "sha256": scene.video.sha256,
            "duration_s": scene.video.duration_s,
        },
        "satellite_images": [
            {"name": s.original_name, "sha256": s.sha256, "width": s.width, "height": s.height, "corners": s.corners}
            for s in scene.satellite_images.all()
        ],
        "provenance": item.provenance,
    }


def _scene_info(scene: Scene) -> dict[str, Any]:
    image = next((s for s in scene.satellite_images.all() if s.georef), None)
    centre = None
    if image is not None:
        ref = GeoReference.from_dict(image.georef or {})
        lon, lat = ref.pixel_to_lonlat(ref.width / 2, ref.height / 2)
        centre = [round(float(lat), 6), round(float(lon), 6)]
    return {
        "name": scene.name,
        "license": scene.source_license,
        "attribution": scene.source_attribution,
        "center_latlon": centre,
    }


def release_inputs(items: list[Item]) -> ReleaseInputs:
    """Records (in uid order), media to ship, georeferences, blind answers and scene facts."""
    out = ReleaseInputs(records=[], media={}, georefs={})
    scenes: dict[int, Scene] = {}
    reviewer_alias: dict[int, str] = {}
    for item in sorted(items, key=lambda i: i.id):
        scene = item.scene
        scenes[scene.id] = scene
        video, stored = _video_path(scene)
        out.media[video] = stored
        images = []
        for image in scene.satellite_images.all():
            path, stored = _image_path(image)
            out.media[path] = stored
            images.append(path)
            if image.georef:
                out.georefs[image.id] = image.georef
        out.records.append(item_record(item, video=video, images=images))
        for review in item.reviews.all():
            # Reviewers appear under a stable alias, never by name.
            alias = reviewer_alias.setdefault(review.reviewer_id, f"r{len(reviewer_alias) + 1}")
            out.human.append({"id": item.uid, "reviewer": alias, "answer": review.blind_answer})
    out.scenes = [_scene_info(s) for s in sorted(scenes.values(), key=lambda s: s.name)]
    return out
