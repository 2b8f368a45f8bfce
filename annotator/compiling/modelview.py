"""The model view of an item: exactly what a model is given, rendered by a job after compiling (so
compiling stays quick) and stored through Django's storage.

- the satellite image at full extent with the marks the question names drawn and named as it names
  them (Template.shown_roles, recorded in provenance["shown"]); with lettered candidates A-D, the
  candidate sheet: the image cut to the candidates with a margin, inside the image's valid-data area;
- one image per lettered option (Scene Association regions, trajectories, candidate points), each
  the same cut as the sheet with its one candidate drawn;
- the video, or for an item about a time interval (provenance "segment_s" / "interval_s") that
  segment cut with ffmpeg.

The plan (what to draw, which segment) is read from the item's provenance alone, so an item renders
the same way whenever it is rendered, and a preview draws the same plan before anything is saved."""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

import media_tools
from annotator.models import ModelView, SatelliteImage
from annotator.storage import delete_quietly, local_copy, store_path
from media_tools.imagery import Shape, candidates_box, draw_option, draw_view
from media_tools.imagery.modelview import MAX_VIEW_SIDE, OPTION_MAX_SIDE
from media_tools.video import cut_segment

log = logging.getLogger(__name__)

# Provenance keys of the tasks about a time interval of the video: the model gets that segment.
SEGMENT_KEYS = ("segment_s", "interval_s")
# A view still "running" after this long belonged to a worker that died; it may be claimed again.
STALE_RUNNING = timedelta(minutes=15)
# Previews are drawn in the request: smaller than the stored view, same plan.
PREVIEW_SIDE = 1280
PREVIEW_OPTION_SIDE = 320
S = ModelView.State


@dataclass(frozen=True)
class Plan:
    shapes: list[Shape]  # drawn on the whole image, colour i for shape i
    options: list[tuple[str, Shape, int]]  # (option, shape, its colour), one image each
    segment: tuple[float, float] | None
    image_id: int | None  # the satellite image the marks are drawn on


def view_plan(provenance: Mapping[str, Any]) -> Plan:
    """What the model view of an item with this provenance shows."""
    snapshots = {m["id"]: m for m in provenance.get("marks", [])}
    names = provenance.get("names", {})
    shown = [
        Shape(snapshots[i]["geometry"], names.get(str(i), snapshots[i]["label"]))
        for i in provenance.get("shown", [])
        if i in snapshots
    ]
    lettered = [
        Shape(c["geometry"], c["letter"], tuple(c["geometry"].get("vertex_times") or ()))
        for c in provenance.get("candidates") or []
    ]
    segment = next((provenance[k] for k in SEGMENT_KEYS if provenance.get(k)), None)
    first = next(iter(snapshots.values()), None)
    return Plan(
        shapes=shown + lettered,
        options=[(s.name, s, len(shown) + j) for j, s in enumerate(lettered)],
        segment=(float(segment[0]), float(segment[1])) if segment else None,
        image_id=first["satellite_image"] if first else None,
    )


def image_name(image: SatelliteImage) -> str:
    """The 8-bit display rendering when there is one (what people see too), else the file."""
    return str(image.display.name if image.display else image.file.name)


def relettered(provenance: Mapping[str, Any], order: Sequence[int]) -> dict[str, Any]:
    """The provenance with its lettered candidates in another order: `order[i]` is the index, in
    provenance["candidates"], of the candidate shown as the i-th letter (A, B, ...). Only what is
    drawn changes; the key and options are the caller's to permute alike."""
    candidates = list(provenance.get("candidates") or [])
    if sorted(order) != list(range(len(candidates))):
        raise ValueError(f"order {list(order)} is not a permutation of the {len(candidates)} candidates")
    letters = [c["letter"] for c in candidates]
    moved = [{**candidates[j], "letter": letters[i]} for i, j in enumerate(order)]
    return {**provenance, "candidates": moved}


def lettered_crop(plan: Plan, image: SatelliteImage) -> tuple[int, int, int, int] | None:
    """Where the candidate sheet and the option images are cut: the candidates with a margin, inside
    the bounding box of the image's valid-data area (stored by the valid_area job, or traced when
    the template placed the candidates). None without lettered candidates: the view shows it all."""
    if not plan.options:
        return None
    within = None
    if image.valid_area:
        from shapely.geometry import shape as to_shape

        valid = to_shape(image.valid_area)
        if not valid.is_empty:
            x0, y0, x1, y1 = (float(v) for v in valid.bounds)
            within = (x0, y0, x1, y1)
    # Every drawn shape: the candidates, and any mark the question names beside them.
    return candidates_box([s.geometry for s in plan.shapes], image.width, image.height, within=within)


def draw_images(
    plan: Plan,
    src: Path,
    out: Path,
    *,
    crop: tuple[int, int, int, int] | None,
    side: int,
    option_side: int,
    on_progress: Callable[[float], None],
) -> tuple[Path, list[tuple[str, Path]]]:
    """Draw the view and the option images of `plan` from the local image `src` into `out`, each cut
    to `crop` when given (lettered_crop)."""
    limit = settings.SKYMARK_MAX_IMAGE_PIXELS
    view = out / "view.jpg"
    draw_view(src, view, plan.shapes, crop=crop, max_side=side, max_pixels=limit)
    options = []
    for n, (option, shape, colour) in enumerate(plan.options, 1):
        path = out / f"option-{option}.jpg"
        draw_option(src, path, shape, colour=colour, crop=crop, max_side=option_side, max_pixels=limit)
        options.append((option, path))
        on_progress(0.1 + 0.4 * n / len(plan.options))
    return view, options


def model_view_draw(
    *,
    provenance: Mapping[str, Any],
    image: SatelliteImage,
    out: Path,
    order: Sequence[int] | None = None,
    side: int = MAX_VIEW_SIDE,
    option_side: int = OPTION_MAX_SIDE,
    on_progress: Callable[[float], None] = lambda fraction: None,
) -> tuple[Path, list[tuple[str, Path]]]:
    """The view (view.jpg) and one image per lettered option (option-<letter>.jpg) of an item with
    this provenance, drawn into the folder `out` from the satellite image (read through storage).
    `order` re-letters the candidates first (relettered); the cut is the same for every order.
    Returns the view's path and (letter, path) per option, in letter order. Writes nothing else."""
    plan = view_plan(relettered(provenance, order) if order is not None else provenance)
    crop = lettered_crop(plan, image)
    with local_copy(image_name(image)) as src:
        return draw_images(plan, src, out, crop=crop, side=side, option_side=option_side, on_progress=on_progress)


# ---- the job ---------------------------------------------------------------------------------


def _gone(view_id: int) -> bool:
    """True (and said at info level) when the view's row is no longer there: its item was deleted
    after the job was queued. Nothing is left to draw, so the job ends without a retry or an error."""
    if ModelView.objects.filter(id=view_id).exists():
        return False
    log.info("model view %s: its item no longer exists; nothing to render", view_id)
    return True


def _claim(view_id: int) -> ModelView | None:
    with transaction.atomic():
        view = ModelView.objects.select_for_update().select_related("item__scene__video").filter(id=view_id).first()
        if view is None:
            return None
        fresh = view.started_at and timezone.now() - view.started_at < STALE_RUNNING
        if view.state == S.SUCCEEDED or (view.state == S.RUNNING and fresh):
            return None
        view.state, view.progress, view.error = S.RUNNING, 0, ""
        view.attempts += 1
        view.started_at, view.finished_at = timezone.now(), None
        view.save(update_fields=["state", "progress", "error", "attempts", "started_at", "finished_at", "updated_at"])
        return view


def _reporter(view_id: int) -> Callable[[float], None]:
    def report(fraction: float) -> None:
        pct = max(0, min(99, int(fraction * 100)))
        ModelView.objects.filter(id=view_id, progress__lt=pct).update(progress=pct, updated_at=timezone.now())

    return report


def _cut(view: ModelView, plan: Plan, out: Path) -> tuple[Path, str] | None:
    if plan.segment is None:
        return None
    video = view.item.scene.video
    name = str(video.proxy.name if video.proxy else video.file.name)
    with local_copy(name) as src:
        info = media_tools.probe_video(src, ffprobe_bin=settings.SKYMARK_FFPROBE)
        start, end = plan.segment
        path = out / "segment.mp4"
        seg = cut_segment(
            src,
            path,
            info=info,
            start_s=start,
            end_s=end,
            ffmpeg_bin=settings.SKYMARK_FFMPEG,
            ffprobe_bin=settings.SKYMARK_FFPROBE,
        )
    return path, seg.why


def _render(view: ModelView, report: Callable[[float], None]) -> dict[str, Any]:
    """Draw and cut into a temporary folder, then store; returns the row's new field values. A
    failure deletes what this attempt stored."""
    plan = view_plan(view.item.provenance)
    if plan.image_id is None:
        raise media_tools.MediaError(f"item {view.item.uid}: its provenance names no marks to draw")
    image = SatelliteImage.objects.get(id=plan.image_id)
    prefix = f"modelviews/{view.item_id}/{view.attempts}"
    stored: list[str] = []
    with tempfile.TemporaryDirectory(prefix="skymark-view-") as tmp:
        out = Path(tmp)
        drawn, options = model_view_draw(provenance=view.item.provenance, image=image, out=out, on_progress=report)
        report(0.5)
        cut = _cut(view, plan, out)
        report(0.9)
        try:
            fields: dict[str, Any] = {"image": store_path(drawn, f"{prefix}/view.jpg")}
            stored.append(fields["image"])
            fields["option_images"] = []
            for option, path in options:
                stored.append(store_path(path, f"{prefix}/option-{option}.jpg"))
                fields["option_images"].append({"option": option, "file": stored[-1]})
            if cut is not None:
                stored.append(store_path(cut[0], f"{prefix}/segment.mp4"))
                fields["video"] = stored[-1]
                fields["video_note"] = cut[1][:200]
        except Exception:
            delete_quietly(stored)
            raise
    segment = plan.segment
    fields["segment_start_s"], fields["segment_end_s"] = segment if segment else (None, None)
    return fields


def stored_names(view: ModelView) -> list[str]:
    names = [view.image.name, view.video.name, *(o["file"] for o in view.option_images)]
    return [n for n in names if n]


def model_view_files_delete(sender: Any, instance: ModelView, **kwargs: Any) -> None:
    """post_delete: the view's files go once the deletion commits."""
    names = stored_names(instance)
    if names:
        transaction.on_commit(lambda: delete_quietly(names))


def _finish(view_id: int, *, fields: dict[str, Any]) -> bool:
    """Point the row at the new files; the files of an earlier rendering go once that commits. False
    (the new files deleted) when the row went meanwhile, with its item."""
    new = [fields.get("image"), fields.get("video"), *(o["file"] for o in fields.get("option_images", []))]
    with transaction.atomic():
        view = ModelView.objects.select_for_update().filter(id=view_id).first()
        if view is None:
            transaction.on_commit(lambda: delete_quietly([n for n in new if n]))
            return False
        old = stored_names(view)
        ModelView.objects.filter(id=view_id).update(
            **{"video": "", "video_note": "", **fields},
            state=S.SUCCEEDED,
            progress=100,
            finished_at=timezone.now(),
            updated_at=timezone.now(),
        )
        kept = set(new)
        transaction.on_commit(lambda: delete_quietly([n for n in old if n not in kept]))
    return True


def _fail(view_id: int, error: str) -> None:
    ModelView.objects.filter(id=view_id).update(
        state=S.FAILED, error=error[:2000], finished_at=timezone.now(), updated_at=timezone.now()
    )


def model_view_render(*, view_id: int) -> bool:
    """Render a model view unless it is done or being rendered. True when it rendered now. Bad media
    ends in `failed` with the reason; other errors are recorded, then raised for the task to retry.
    A view whose item was deleted (before or while it renders) ends quietly: False, no retry."""
    view = _claim(view_id)
    if view is None:
        _gone(view_id)
        return False
    try:
        fields = _render(view, _reporter(view_id))
    except media_tools.MediaError as exc:
        _fail(view_id, str(exc))
        return False
    except Exception as exc:
        if _gone(view_id):  # the item (and its marks' image, maybe) went while drawing
            return False
        log.exception("model view %s crashed", view_id)
        _fail(view_id, f"internal error while rendering: {exc}")
        raise
    if not _finish(view_id, fields=fields):
        _gone(view_id)
        return False
    return True
