"""Marks: create, update with optimistic concurrency, delete."""

from __future__ import annotations

import functools
from itertools import pairwise
from typing import Any, cast

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models, transaction
from django.utils import timezone

from annotator.exceptions import Conflict, StaleWrite
from annotator.geometry import validate_geometry
from annotator.labels import label_clean
from annotator.models import Item, Mark, SatelliteImage, Scene, Video


def _validate_times(
    *,
    kind: str,
    geometry: dict[str, Any],
    time_start: float,
    time_end: float | None,
    vertex_times: list[float],
    duration: float | None,
) -> None:
    if time_start < 0:
        raise ValidationError({"time_start": "time must be 0 s or later"})
    if time_end is not None and time_end < time_start:
        raise ValidationError(
            {"time_end": f"the interval ends ({time_end:.2f} s) before it starts ({time_start:.2f} s)"}
        )
    last = time_end if time_end is not None else time_start
    if duration is not None and last > duration + 1e-6:
        raise ValidationError(
            {
                "time_end"
                if time_end is not None
                else "time_start": f"{last:.2f} s is past the end of the video ({duration:.2f} s)"
            }
        )
    if kind != Mark.Kind.POLYLINE:
        if vertex_times:
            raise ValidationError({"vertex_times": "only trajectories (polylines) carry per-vertex times"})
        return
    if vertex_times:
        if len(vertex_times) != len(geometry["coordinates"]):
            raise ValidationError({"vertex_times": "give one time per vertex"})
        if any(b < a for a, b in pairwise(vertex_times)):
            raise ValidationError({"vertex_times": "vertex times must not go backwards"})


@transaction.atomic
def mark_create(
    *,
    scene: Scene,
    author: Any,
    satellite_image: SatelliteImage,
    kind: str,
    geometry: dict[str, Any],
    label: str,
    time_start: float,
    time_end: float | None = None,
    vertex_times: list[float] | None = None,
    facts: dict[str, Any] | None = None,
) -> Mark:
    """Create a mark on one of the scene's satellite images."""
    if not scene.satellite_images.filter(id=satellite_image.id).exists():
        raise ValidationError({"satellite_image": "this image does not belong to the scene"})
    validate_geometry(kind, geometry, width=satellite_image.width, height=satellite_image.height)
    _validate_times(
        kind=kind,
        geometry=geometry,
        time_start=time_start,
        time_end=time_end,
        vertex_times=vertex_times or [],
        duration=scene.video.duration_s,
    )
    return Mark.objects.create(
        scene=scene,
        author=author,
        satellite_image=satellite_image,
        kind=kind,
        geometry=geometry,
        label=label_clean(label),
        time_start=time_start,
        time_end=time_end,
        vertex_times=vertex_times or [],
        facts=facts or {},
    )


FROZEN_STATES = [Item.State.IN_REVIEW, Item.State.APPROVED]


def _locked_by_items(mark: Mark) -> bool:
    return Item.objects.filter(marks=mark, state__in=FROZEN_STATES).exists()


def _video_duration(mark: Mark) -> float | None:
    return Video.objects.filter(scene__id=mark.scene_id).values_list("duration_s", flat=True).first()


def _mark_field(name: str) -> models.Field[Any, Any]:
    return cast("models.Field[Any, Any]", Mark._meta.get_field(name))


# The statements are the same on every save (the merged fields are always the same set): build each once.
@functools.cache
def _update_if_current_sql(fields: tuple[str, ...]) -> str:
    mark, link, item = Mark._meta.db_table, Item.marks.through._meta.db_table, Item._meta.db_table
    sets = ", ".join(f"{_mark_field(f).column} = %s" for f in fields)
    # Names come from the models, values are parameters.
    return (
        f"UPDATE {mark} SET version = version + 1, {sets} WHERE id = %s AND version = %s AND id NOT IN "  # noqa: S608
        f"(SELECT l.mark_id FROM {link} l JOIN {item} i ON i.id = l.item_id WHERE i.state IN (%s, %s))"
    )


def _update_if_current(*, mark_id: int, version: int, values: dict[str, Any]) -> bool:
    """One conditional UPDATE: the row changes only at `version` and while no submitted item
    freezes it, so a concurrent save or submission cannot slip in between a check and the write.

    Written out because autosave runs it on every save and the ORM spent about 1 ms compiling
    the equivalent .filter().exclude().update() each time; values still go through each field's
    own database preparation (JSON, time zones), so both databases store what the ORM would."""
    fields = tuple(sorted(values))
    connection = transaction.get_connection()
    params = [_mark_field(f).get_db_prep_save(values[f], connection) for f in fields]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_update_if_current_sql(fields), [*params, mark_id, version, *FROZEN_STATES])
        return bool(cursor.rowcount)


def mark_update(*, mark: Mark, user: Any, version: int, changes: dict[str, Any]) -> Mark:
    """Apply `changes` if `version` is current. Raises StaleWrite (-> HTTP 409) otherwise.

    Validation runs before the transaction, so the write lock is held only for one conditional
    UPDATE (current version, not frozen by a submitted item); autosave calls this often."""
    if mark.author_id != user.id:
        raise PermissionDenied("only the author can edit a mark")
    merged = {
        f: changes.get(f, getattr(mark, f))
        for f in ("geometry", "label", "time_start", "time_end", "vertex_times", "facts")
    }
    image = mark.satellite_image
    validate_geometry(mark.kind, merged["geometry"], width=image.width, height=image.height)
    _validate_times(
        kind=mark.kind,
        geometry=merged["geometry"],
        time_start=merged["time_start"],
        time_end=merged["time_end"],
        vertex_times=merged["vertex_times"],
        # Times already stored were checked against the video when they were set.
        duration=_video_duration(mark) if {"time_start", "time_end", "vertex_times"} & set(changes) else None,
    )
    merged["label"] = label_clean(str(merged["label"]))
    merged["updated_at"] = timezone.now()
    if not _update_if_current(mark_id=mark.id, version=version, values=merged):
        if _locked_by_items(mark):
            raise Conflict("this mark is part of an item under review or approved; it cannot change now")
        raise StaleWrite(Mark.objects.get(id=mark.id))
    # The conditional UPDATE succeeded, so the row is exactly `merged` at version + 1.
    for field, value in merged.items():
        setattr(mark, field, value)
    mark.version = version + 1
    return mark


@transaction.atomic
def mark_delete(*, mark: Mark, user: Any, version: int) -> None:
    if mark.author_id != user.id:
        raise PermissionDenied("only the author can delete a mark")
    if Item.objects.filter(marks=mark).exclude(state=Item.State.DRAFT).exists():
        raise Conflict("this mark is used by a submitted item; it cannot be deleted")
    Item.objects.filter(marks=mark, state=Item.State.DRAFT).delete()
    deleted, _ = Mark.objects.filter(id=mark.id, version=version).delete()
    if not deleted:
        raise StaleWrite(Mark.objects.get(id=mark.id))
