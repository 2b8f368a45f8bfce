"""Lettered images a release draws itself: when the freeze letters an item's candidates anew
(ordering.py), or a circular rotation shows them in another order (formats/variants.py), the
picture must carry the letters the options carry. The drawing is the model view's own
(annotator.compiling.modelview: the plan from the provenance, then the same draw calls), so a
release's images look like the reviewed ones; only the lettering differs.

- at the freeze, `lettered_media` points a record at the files the build will draw and takes the
  stored ones off the copy list;
- at the build, `write` draws every record (original or rotation) whose lettered view is not
  copied. The same records and satellite images give the same bytes."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

OpenMedia = Callable[[str], IO[bytes]]


def item_folder(uid: str, rotation: int = 0) -> str:
    return f"media/items/{uid}" + (f"/r{rotation}" if rotation else "")


def is_lettered(record: dict[str, Any]) -> bool:
    return bool(record.get("provenance", {}).get("candidates"))


def lettered_paths(record: dict[str, Any], folder: str) -> dict[str, Any]:
    """The media of a lettered record drawn into `folder`: the view and one image per option."""
    return {
        "images": [f"{folder}/view.jpg"],
        "option_images": [{"option": o, "image": f"{folder}/option-{o}.jpg"} for o in record["options"]],
    }


def needs_drawing(record: dict[str, Any]) -> bool:
    """A lettered record whose stored model view does not show its letters: reordered by the
    freeze, or with no stored option images at all."""
    if not is_lettered(record):
        return False
    order = record["provenance"].get("release", {}).get("order")
    moved = order is not None and order != list(range(len(order)))
    return moved or not record["media"].get("option_images")


def lettered_media(record: dict[str, Any], media: dict[str, str]) -> None:
    """At the freeze: point a record that needs drawing at the files the build draws, and drop the
    stored ones (drawn with other letters) from `media`, the copy list."""
    if not needs_drawing(record):
        return
    folder = item_folder(record["id"])
    stale = [record["media"].get("images", [])[:1], [o["image"] for o in record["media"].get("option_images", [])]]
    for path in (p for group in stale for p in group):
        if path.startswith(f"{folder}/"):
            media.pop(path, None)
    record["media"] = {**record["media"], **lettered_paths(record, folder)}


def drawn_on(record: dict[str, Any]) -> int | None:
    """The satellite image the record's marks (and so its candidates) are drawn on."""
    marks = record.get("provenance", {}).get("marks") or []
    return marks[0].get("satellite_image") if marks else None


@contextmanager
def _local_images(names: dict[str, str], open_media: OpenMedia) -> Iterator[Callable[[str], Path]]:
    """Each satellite image copied out of storage once, on first use."""
    folder = Path(tempfile.mkdtemp(prefix="skymark-letters-"))
    copies: dict[str, Path] = {}

    def local(image_id: str) -> Path:
        if image_id not in copies:
            stored = names[image_id]
            path = folder / f"{image_id}{Path(stored).suffix}"
            with open_media(stored) as src, path.open("wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            copies[image_id] = path
        return copies[image_id]

    try:
        yield local
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def write(
    root: Path,
    records: list[dict[str, Any]],
    *,
    copied: set[str],
    images: dict[str, str],
    open_media: OpenMedia,
) -> list[Path]:
    """Draw the view and option images of every lettered record whose view is not in `copied`.
    `images`: satellite image id (text) -> storage name of what is drawn on."""
    from annotator.compiling.modelview import draw_images, lettered_crop, view_plan
    from annotator.models import SatelliteImage
    from media_tools.imagery.modelview import MAX_VIEW_SIDE, OPTION_MAX_SIDE

    # The cut around the candidates is the model view's (their box, inside the image's data).
    rows = {str(im.id): im for im in SatelliteImage.objects.filter(id__in=[int(i) for i in images])}
    files: list[Path] = []
    with _local_images(images, open_media) as local:
        for record in records:
            if not is_lettered(record) or record["media"]["images"][0] in copied:
                continue
            image_id = drawn_on(record)
            if image_id is None or str(image_id) not in images:
                raise ValueError(f"{record['id']}: no satellite image to draw its lettered candidates on")
            view = root / record["media"]["images"][0]
            view.parent.mkdir(parents=True, exist_ok=True)
            plan = view_plan(record["provenance"])
            drawn, options = draw_images(
                plan,
                local(str(image_id)),
                view.parent,
                crop=lettered_crop(plan, rows[str(image_id)]) if str(image_id) in rows else None,
                side=MAX_VIEW_SIDE,
                option_side=OPTION_MAX_SIDE,
                on_progress=lambda _f: None,
            )
            files += [drawn, *(path for _, path in options)]
    return files
