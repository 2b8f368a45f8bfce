"""What the model view of an item shows, and drawing it (the job that stores it: render.py).

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

import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from annotator.models import SatelliteImage
from annotator.storage import local_copy
from media_tools.imagery import Shape, candidates_box, draw_option, draw_view
from media_tools.imagery.base import Base
from media_tools.imagery.modelview import MAX_VIEW_SIDE, OPTION_MAX_SIDE

# Provenance keys of the tasks about a time interval of the video: the model gets that segment.
SEGMENT_KEYS = ("segment_s", "interval_s")
# Previews are drawn in the request: smaller than the stored view, same plan.
PREVIEW_SIDE = 1280
PREVIEW_OPTION_SIDE = 320


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
    src: Path | Base,
    out: Path,
    *,
    crop: tuple[int, int, int, int] | None,
    side: int,
    option_side: int,
    on_progress: Callable[[float], None],
) -> tuple[Path, list[tuple[str, Path]]]:
    """Draw the view and the option images of `plan` from the local image `src` (or its decoded
    Base) into `out`, each cut to `crop` when given (lettered_crop)."""
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


def draw_pictures(
    plan: Plan,
    base: Base,
    *,
    crop: tuple[int, int, int, int] | None,
    side: int = MAX_VIEW_SIDE,
    option_side: int = OPTION_MAX_SIDE,
    on_progress: Callable[[float], None] = lambda fraction: None,
) -> tuple[bytes, list[tuple[str, bytes]]]:
    """The JPEG bytes of the view and of each option image (letter, bytes) of `plan`, drawn from the
    decoded `base` in memory: the worker stores them as they are, with no temporary folder."""
    limit = settings.SKYMARK_MAX_IMAGE_PIXELS
    view = io.BytesIO()
    draw_view(base, view, plan.shapes, crop=crop, max_side=side, max_pixels=limit)
    options = []
    for n, (option, shape, colour) in enumerate(plan.options, 1):
        picture = io.BytesIO()
        draw_option(base, picture, shape, colour=colour, crop=crop, max_side=option_side, max_pixels=limit)
        options.append((option, picture.getvalue()))
        on_progress(0.1 + 0.4 * n / len(plan.options))
    return view.getvalue(), options


def model_view_draw(
    *,
    provenance: Mapping[str, Any],
    image: SatelliteImage,
    out: Path,
    order: Sequence[int] | None = None,
    side: int = MAX_VIEW_SIDE,
    option_side: int = OPTION_MAX_SIDE,
    on_progress: Callable[[float], None] = lambda fraction: None,
    base: Base | None = None,
) -> tuple[Path, list[tuple[str, Path]]]:
    """The view (view.jpg) and one image per lettered option (option-<letter>.jpg) of an item with
    this provenance, drawn into the folder `out` from the satellite image (read through storage).
    `order` re-letters the candidates first (relettered); the cut is the same for every order.
    Returns the view's path and (letter, path) per option, in letter order. Writes nothing else.
    `base`, the image already decoded (a worker's cache), spares reading it again."""
    plan = view_plan(relettered(provenance, order) if order is not None else provenance)
    crop = lettered_crop(plan, image)
    if base is not None:
        return draw_images(plan, base, out, crop=crop, side=side, option_side=option_side, on_progress=on_progress)
    with local_copy(image_name(image)) as src:
        return draw_images(plan, src, out, crop=crop, side=side, option_side=option_side, on_progress=on_progress)
