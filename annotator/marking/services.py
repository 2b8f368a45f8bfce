"""Marks: create, update with optimistic concurrency, delete.

Who may call these (the author, on an assigned scene) is checked by the callers through
annotator.access; what the lifecycle has locked is checked here, by the database."""

from __future__ import annotations

import uuid
from contextlib import nullcontext
from itertools import pairwise
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.http import Http404
from django.utils import timezone

from annotator import hotpath
from annotator.compiling import lifecycle
from annotator.compiling.reads import mark_changes
from annotator.exceptions import Conflict, StaleWrite
from annotator.marking.facts import FACTS, Kind, facts_clean
from annotator.marking.geometry import validate_geometry, with_closed_rings
from annotator.marking.labels import label_clean, label_set, label_set_of_scene
from annotator.models import Mark, SatelliteImage, Scene, Video


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
        if vertex_times[0] < 0 or (duration is not None and vertex_times[-1] > duration + 1e-6):
            end = f"{duration:.2f} s" if duration is not None else "the end"
            raise ValidationError({"vertex_times": f"vertex times must lie between 0 s and {end} of the video"})


def mark_create(
    *,
    scene: Scene,
    author: Any,
    satellite_image: SatelliteImage | int,
    kind: str,
    geometry: dict[str, Any],
    label: str,
    time_start: float,
    time_end: float | None = None,
    vertex_times: list[float] | None = None,
    facts: dict[str, Any] | None = None,
    client_key: uuid.UUID | None = None,
    draft: bool = False,
) -> Mark:
    """Create a mark on one of the scene's satellite images. Checked before the write transaction:
    on the embedded default a transaction holds the one writer lock every save queues on, and the
    checks (the image, the video's length, shapely) held it for most of a mark POST, which then waited
    on the lock a quarter of its time under the 8-client unit load (bench/README.md). The mark itself
    is one INSERT.

    `draft`: a tracked trajectory, final only once its author confirms it (marking.assist).

    `satellite_image`: the image, or its id (then read through the scene: the one query is also
    the check that it belongs there). The scene's video and project are read from `scene`, so a
    scene read with select_related("video", "project") costs no query here (marking.selectors).

    `client_key`: drawn by the client for this mark and sent again with every retry of the create.
    A key the author used before returns the mark it made (as it is now) instead of a second one;
    `mark.replayed` tells which happened. The key names one create, so it cannot move to another scene."""
    image = _image_of_scene(scene=scene, image=satellite_image)
    try:
        fields = _mark_fields(
            scene=scene,
            author=author,
            image=image,
            kind=kind,
            geometry=geometry,
            label=label,
            time_start=time_start,
            time_end=time_end,
            vertex_times=vertex_times or [],
            facts=facts or {},
        )
    except ValidationError:
        # A retry of a create that was applied returns its mark even if the payload no longer
        # passes (the project's labels changed in between): the mark was valid when it was made.
        earlier = _mark_of_key(author=author, client_key=client_key, scene=scene) if client_key else None
        if earlier is None:
            raise
        return earlier
    fields.update(client_key=client_key, draft=draft)
    try:
        # A retry is told apart by the unique (author, client_key) at the INSERT, not by a read
        # before it: that read found nothing for every create but a retry (one query in four of a
        # mark POST's on PostgreSQL). Outside a transaction (an API request) the INSERT needs none
        # of its own: a failed statement in autocommit leaves the connection usable, and the BEGIN
        # and COMMIT a savepoint opens were two more round trips (bench/README.md, "A mark POST in
        # four queries"). Inside one (a caller's atomic block), a savepoint keeps it usable.
        with transaction.atomic() if connection.in_atomic_block else nullcontext():
            mark = Mark.objects.create(**fields)
    except IntegrityError:
        earlier = _mark_of_key(author=author, client_key=client_key, scene=scene) if client_key else None
        if earlier is None:
            raise
        return earlier
    mark.replayed = False  # type: ignore[attr-defined]
    return mark


def _mark_fields(
    *,
    scene: Scene,
    author: Any,
    image: SatelliteImage,
    kind: str,
    geometry: dict[str, Any],
    label: str,
    time_start: float,
    time_end: float | None,
    vertex_times: list[float],
    facts: dict[str, Any],
) -> dict[str, Any]:
    """A new mark's fields, checked (geometry on the image, times within the video, facts, label)."""
    validate_geometry(kind, geometry, width=image.width, height=image.height)
    geometry = with_closed_rings(kind, geometry)
    _validate_times(
        kind=kind,
        geometry=geometry,
        time_start=time_start,
        time_end=time_end,
        vertex_times=vertex_times,
        duration=scene.video.duration_s,
    )
    return {
        "scene": scene,
        "author": author,
        "satellite_image": image,
        "kind": kind,
        "geometry": geometry,
        "label": label_clean(label, names=label_set(project=scene.project)),
        "time_start": time_start,
        "time_end": time_end,
        "vertex_times": vertex_times,
        "facts": facts_clean(facts, duration=scene.video.duration_s),
    }


def _image_of_scene(*, scene: Scene, image: SatelliteImage | int) -> SatelliteImage:
    """The image, checked to be one of the scene's. Read by id, it brings what a mark needs of it
    (its size for the checks, its georeference for the answer's WGS84), not its valid-area outline
    and control points, which would be JSON decoded for nothing."""
    wrong = ValidationError({"satellite_image": "this image does not belong to the scene"})
    if isinstance(image, SatelliteImage):
        if not scene.satellite_images.filter(id=image.id).exists():
            raise wrong
        return image
    checked = getattr(scene, hotpath.CHECKED_IMAGE, None)
    if checked is not None and checked[0] == image:  # read with the scene (marking.selectors)
        found = checked[1]
    else:  # by hand: the ORM's form of this read cost more to build than to run (annotator.hotpath)
        found = hotpath.image_of_scene(scene_id=scene.id, image_id=image)
    if found is None:
        raise wrong
    return found


def _mark_of_key(*, author: Any, client_key: uuid.UUID, scene: Scene) -> Mark | None:
    mark = Mark.objects.select_related("satellite_image").filter(author=author, client_key=client_key).first()
    if mark is None:
        return None
    if mark.scene_id != scene.id:
        raise ValidationError({"client_key": "this key was used for a mark on another scene; draw a new one"})
    mark.replayed = True  # type: ignore[attr-defined]
    return mark


EDITABLE_FIELDS = ("geometry", "label", "time_start", "time_end", "vertex_times", "facts")
LOCKED_MESSAGE = "this mark is part of an item under review or approved; it cannot change now"


def _video_duration(mark: Mark) -> float | None:
    return Video.objects.filter(scene__id=mark.scene_id).values_list("duration_s", flat=True).first()


def _write_missed(mark_id: int) -> Exception:
    """Why a conditional write matched no row: the lock (409 with a sentence), a newer version
    (409 with the mark as it is now, so the page can offer keep-mine / take-theirs) or a delete (404)."""
    current = Mark.objects.select_related("satellite_image").filter(id=mark_id).first()
    if current is None:  # deleted by a request that won the race: nothing left to write to
        return Http404("this mark was deleted")
    return Conflict(LOCKED_MESSAGE) if current.locked else StaleWrite(current)


def _copy_on_write(*, mark_id: int, version: int, merged: dict[str, Any]) -> Mark | None:
    """The edit of a locked mark, written to a copy its author's drafts and rejected items move to
    (lifecycle.items_move_to_copy); None when there is nothing to copy for, or `version` is not
    the current one (the caller then refuses as usual)."""
    current = Mark.objects.select_for_update().filter(id=mark_id).first()
    if current is None or not current.locked or current.version != version:
        return None
    if not lifecycle.marks_copy_on_write_possible(mark_id=current.id, author_id=current.author_id):
        return None
    copy = Mark.objects.create(
        scene_id=current.scene_id,
        satellite_image_id=current.satellite_image_id,
        author_id=current.author_id,
        kind=current.kind,
        copied_from=current,
        **{k: v for k, v in merged.items() if k != "updated_at"},
    )
    moved = lifecycle.items_move_to_copy(original=current, copy=copy)
    _relations_follow_copy(original_id=current.id, copy_id=copy.id, item_ids=moved)
    return Mark.objects.select_related("satellite_image").get(id=copy.id)


def _relations_follow_copy(*, original_id: int, copy_id: int, item_ids: list[int]) -> None:
    """Relations (facts of kind relation, e.g. occlusion) that the other marks of the moved items
    state about the original now name the copy, so the items still read them. Only marks nothing
    locks are rewritten: a locked mark keeps what the items in review or approved read (its
    author states the relation to the copy again, which copies that mark in turn)."""
    keys = [key for key, spec in FACTS.items() if spec.kind == Kind.RELATION]
    # PostgreSQL refuses FOR UPDATE with DISTINCT: the join picks the ids, the lock reads the rows.
    sibling_ids = Mark.objects.filter(items__id__in=item_ids, locked=False).exclude(id=copy_id).values("id")
    for mark in Mark.objects.filter(id__in=sibling_ids).select_for_update():
        facts = dict(mark.facts or {})
        for key in keys:
            value = facts.get(key)
            if isinstance(value, list) and any(isinstance(e, dict) and e.get("other") == original_id for e in value):
                facts[key] = [{**e, "other": copy_id} if e.get("other") == original_id else e for e in value]
        if facts != mark.facts:
            Mark.objects.filter(id=mark.id).update(facts=facts, version=F("version") + 1, updated_at=timezone.now())


def mark_update(*, mark: Mark, version: int, changes: dict[str, Any]) -> Mark:
    """Apply `changes` if `version` is current and no submitted item locks the mark. Raises
    StaleWrite (-> 409 with the current mark) or Conflict (-> 409, locked). Drafts and rejected
    items compiled from the mark become stale when they read what changed (annotator.compiling.reads).

    Copy on write: when an item in review or approved locks the mark but its author has drafts or
    rejected items on it (a rejected item being fixed), the edit goes to a new mark those items
    move to, and that copy is returned (its id differs from `mark.id`); the locking items keep
    the original, unchanged.

    Validation runs before the transaction, so the write lock is held only for one conditional
    UPDATE (the database, not Python, decides who won a race) and the staleness UPDATE."""
    merged = {f: changes.get(f, getattr(mark, f)) for f in EDITABLE_FIELDS}
    image = mark.satellite_image
    validate_geometry(mark.kind, merged["geometry"], width=image.width, height=image.height)
    if "geometry" in changes:  # a stored ring is closed when it is edited, so other edits change only themselves
        merged["geometry"] = with_closed_rings(mark.kind, merged["geometry"])
    _validate_times(
        kind=mark.kind,
        geometry=merged["geometry"],
        time_start=merged["time_start"],
        time_end=merged["time_end"],
        vertex_times=merged["vertex_times"],
        # Times already stored were checked against the video when they were set.
        duration=_video_duration(mark) if {"time_start", "time_end", "vertex_times"} & set(changes) else None,
    )
    if "label" in changes:  # a label the set has since dropped stays on the marks that carry it
        merged["label"] = label_clean(str(merged["label"]), names=label_set_of_scene(scene_id=mark.scene_id))
    if "facts" in changes:
        merged["facts"] = facts_clean(merged["facts"], duration=_video_duration(mark), mark_id=mark.id)
    changed = mark_changes(before=mark, after=merged)
    merged["updated_at"] = timezone.now()
    with transaction.atomic():
        updated = Mark.objects.filter(id=mark.id, version=version, locked=False).update(
            version=F("version") + 1, **merged
        )
        if not updated:
            copy = _copy_on_write(mark_id=mark.id, version=version, merged=merged)
            if copy is not None:
                return copy
            raise _write_missed(mark.id)
        # Skipped when the mark was read with no open item built from it (mark_for_edit); an item
        # compiled in between still cannot pass submit, which compares what it read of the marks.
        if getattr(mark, "has_open_items", True):
            lifecycle.items_invalidate_for_mark(mark_id=mark.id, changes=changed)
    # The conditional UPDATE succeeded, so the row is exactly `merged` at version + 1.
    for field, value in merged.items():
        setattr(mark, field, value)
    mark.version = version + 1
    return mark


@transaction.atomic
def mark_delete(*, mark: Mark, version: int) -> None:
    """Delete the mark at `version` unless locked; drafts built from it go too, rejected items
    built from it become stale (see lifecycle.items_release_mark)."""
    lifecycle.items_release_mark(mark_id=mark.id)
    deleted, _ = Mark.objects.filter(id=mark.id, version=version, locked=False).delete()
    if not deleted:
        raise _write_missed(mark.id)  # the transaction rolls back the item changes
