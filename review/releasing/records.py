"""The frozen form of items: the record each release file is written from, and the media files a
release ships (paths inside the release, relative to its root).

Read with a handful of flat queries (item values, the scenes with their video, the images per
scene, the blind answers) rather than model instances per item: a release holds tens of thousands
of items, and building three model objects and a prefetch queryset per item was most of the cost
of an export (bench/release.py)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import F, QuerySet

from annotator.compiling.catalog import TASK_DIMENSION
from annotator.models import Item, ModelView, SatelliteImage, Scene
from media_tools.geo import GeoReference
from review.models import Review

ITEM_FIELDS = ("id", "task", "question", "options", "answer", "answer_format", "provenance", "scene_id")


@dataclass
class ReleaseInputs:
    records: list[dict[str, Any]]
    media: dict[str, str]  # path in the release -> storage name of the file to copy
    georefs: dict[int, dict[str, Any]]  # satellite image id -> georeference (for GeoJSON)
    human: list[dict[str, Any]] = field(default_factory=list)  # blind answers: id, reviewer, answer
    scenes: list[dict[str, Any]] = field(default_factory=list)  # name, license, attribution, location
    item_ids: list[int] = field(default_factory=list)  # in the order of `records`
    not_ready: list[str] = field(default_factory=list)  # uids whose model view failed to render
    images: dict[int, str] = field(default_factory=dict)  # satellite image id -> storage name shown
    cut_from: dict[str, str] = field(default_factory=dict)  # uid -> video a segment the build cuts comes from
    scene_of: dict[int, int] = field(default_factory=dict)  # item id -> scene id


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


def _scene_info(scene: Scene, images: list[SatelliteImage]) -> dict[str, Any]:
    image = next((s for s in images if s.georef), None)
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


@dataclass
class _SceneMedia:
    scene: Scene
    images: list[SatelliteImage]
    video_path: str
    image_paths: list[str]
    video: dict[str, Any]
    satellite: list[dict[str, Any]]
    cut_from: str = ""  # the stored video segments are cut from (the proxy when there is one)


def _scenes(scene_ids: set[int], out: ReleaseInputs) -> dict[int, _SceneMedia]:
    """Each scene once: its video and images, the media to ship, georeferences, scene facts."""
    images_of: dict[int, list[SatelliteImage]] = defaultdict(list)
    links = Scene.satellite_images.through.objects.filter(scene_id__in=scene_ids).values_list(
        "scene_id", "satelliteimage_id"
    )
    pairs = list(links)
    images = SatelliteImage.objects.in_bulk({i for _, i in pairs})
    for scene_id, image_id in sorted(pairs, key=lambda p: (p[0], p[1])):
        images_of[scene_id].append(images[image_id])
    found = {}
    for scene in Scene.objects.filter(id__in=scene_ids).select_related("video").order_by("name"):
        video_path, stored = _video_path(scene)
        out.media[video_path] = stored
        image_paths = []
        for image in images_of[scene.id]:
            path, stored = _image_path(image)
            out.media[path] = stored
            out.images[image.id] = stored
            image_paths.append(path)
            if image.georef:
                out.georefs[image.id] = image.georef
        out.scenes.append(_scene_info(scene, images_of[scene.id]))
        found[scene.id] = _SceneMedia(
            scene=scene,
            images=images_of[scene.id],
            video_path=video_path,
            image_paths=image_paths,
            cut_from=str(scene.video.proxy.name if scene.video.proxy else scene.video.file.name),
            video={
                "name": scene.video.original_name,
                "sha256": scene.video.sha256,
                "duration_s": scene.video.duration_s,
            },
            satellite=[
                {
                    "name": s.original_name,
                    "sha256": s.sha256,
                    "width": s.width,
                    "height": s.height,
                    "corners": s.corners,
                }
                for s in images_of[scene.id]
            ],
        )
    return found


def _model_view_media(uid: str, view: dict[str, Any], out: ReleaseInputs) -> dict[str, Any]:
    """The item's model view as the release ships it: the satellite image with the item's marks
    drawn and named, one image per lettered option, and the cut segment when there is one."""
    base = f"media/items/{uid}"
    image = f"{base}/view.{_ext(view['image'], 'png')}"
    out.media[image] = view["image"]
    options = []
    for option in view["option_images"] or []:
        path = f"{base}/option-{option['option']}.{_ext(option['file'], 'png')}"
        out.media[path] = option["file"]
        options.append({"option": option["option"], "image": path})
    media: dict[str, Any] = {"images": [image], "option_images": options}
    if view["video"]:
        segment = f"{base}/segment.{_ext(view['video'], 'mp4')}"
        out.media[segment] = view["video"]
        media["video"] = segment
        media["segment_s"] = [view["segment_start_s"], view["segment_end_s"]]
    return media


# The provenance keys of an interval item (annotator.compiling.modelview.SEGMENT_KEYS, not imported:
# that module loads the imaging libraries, and a freeze runs in a web process).
SEGMENT_KEYS = ("segment_s", "interval_s")


def _view_to_draw(uid: str, row: dict[str, Any], scene: _SceneMedia, out: ReleaseInputs) -> dict[str, Any]:
    """The model view of an item whose view is still queued (or drawing): the build draws it from
    the provenance as the job would (drawing.py), under these names, instead of waiting for the
    queue. The view and, for lettered candidates, one image per option; the segment when it has one."""
    from .drawing import item_folder

    folder = item_folder(uid)
    prov = row["provenance"]
    media: dict[str, Any] = {"images": [f"{folder}/view.jpg"], "option_images": []}
    if prov.get("candidates"):
        media["option_images"] = [{"option": c["letter"], "image": f"{folder}/option-{c['letter']}.jpg"}
                                  for c in prov["candidates"]]  # fmt: skip
    segment = next((prov[k] for k in SEGMENT_KEYS if prov.get(k)), None)
    if segment:
        media["video"], media["segment_s"] = f"{folder}/segment.mp4", [float(segment[0]), float(segment[1])]
        out.cut_from[uid] = scene.cut_from
    return media


def item_record(row: dict[str, Any], media: _SceneMedia, view: dict[str, Any] | None = None) -> dict[str, Any]:
    """`view`: the item's model-view media (images, option images, segment) when it has one; else
    the scene's video and satellite images as they are (items compiled before model views)."""
    shown = {"video": media.video_path, "images": media.image_paths, "option_images": []}
    shown.update(view or {})
    return {
        "id": Item.uid_for(row["id"]),
        "task": row["task"],
        "dimension": TASK_DIMENSION[row["task"]],
        "question": row["question"],
        "options": row["options"],
        "answer": row["answer"],
        "answer_format": row["answer_format"],
        "scene": media.scene.name,
        "media": shown,
        "video": media.video,
        "satellite_images": media.satellite,
        "provenance": row["provenance"],
    }


def release_inputs(items: QuerySet[Item]) -> ReleaseInputs:
    """Records (in uid order), media to ship, georeferences, blind answers and scene facts."""
    out = ReleaseInputs(records=[], media={}, georefs={})
    rows = list(items.order_by("id").values(*ITEM_FIELDS))
    scenes = _scenes({r["scene_id"] for r in rows}, out)
    fields = ("item_id", "state", "image", "video", "option_images", "segment_start_s", "segment_end_s")
    views = {v["item_id"]: v for v in ModelView.objects.filter(item__in=items).values(*fields)}
    for row in rows:
        uid, view = Item.uid_for(row["id"]), views.get(row["id"])
        state = view["state"] if view is not None else None
        if state == ModelView.State.FAILED:
            out.not_ready.append(uid)
        shown: dict[str, Any] | None = None
        if state in (ModelView.State.PENDING, ModelView.State.RUNNING):
            shown = _view_to_draw(uid, row, scenes[row["scene_id"]], out)
        elif view is not None and view["image"]:
            shown = _model_view_media(uid, view, out)
        out.records.append(item_record(row, scenes[row["scene_id"]], shown))
        out.item_ids.append(row["id"])
        out.scene_of[row["id"]] = row["scene_id"]
    # Reviewers appear under a stable alias (in order of their first review), never by name.
    alias: dict[int, str] = {}
    reviews = (
        # the current revision's blind answers (earlier rounds answered other keys), gold checks included
        # (a subquery of the items, not their ids: tens of thousands of parameters cost more than the query)
        Review.objects.filter(item__in=items.values("id"), revision=F("item__revision"))
        .order_by("id")
        .values_list("item_id", "reviewer_id", "blind_answer")
    )
    for item_id, reviewer_id, answer in reviews:
        name = alias.setdefault(reviewer_id, f"r{len(alias) + 1}")
        out.human.append({"id": Item.uid_for(item_id), "reviewer": name, "answer": answer})
    return out
