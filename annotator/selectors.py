"""Reads scoped to the user asking. No queries in loops: lists prefetch what they show."""

from __future__ import annotations

import functools
import json
from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet
from django.http import Http404

from annotator.models import (
    Assignment,
    Item,
    Keyframe,
    Mark,
    MediaJob,
    SatelliteImage,
    Scene,
    TelemetryTrack,
)
from annotator.roles import ADMIN, ANNOTATOR, REVIEWER, user_roles


def scenes_for_user(*, user: Any) -> QuerySet[Scene]:
    """Admins see every scene, reviewers those with items to review, annotators their assignments."""
    roles = user_roles(user)
    qs = Scene.objects.select_related("video").prefetch_related(
        Prefetch(
            "satellite_images",
            queryset=SatelliteImage.objects.prefetch_related(
                Prefetch("jobs", queryset=MediaJob.objects.order_by("id"))
            ),
        ),
        Prefetch("jobs", queryset=MediaJob.objects.order_by("id")),
    )
    if ADMIN in roles:
        return qs
    visible = Q(pk__in=[])
    if ANNOTATOR in roles:
        visible |= Q(assignments__annotator=user)
    if REVIEWER in roles:
        visible |= Q(items__state__in=[Item.State.IN_REVIEW, Item.State.APPROVED, Item.State.REJECTED])
    return qs.filter(visible).distinct()


def scene_get(*, user: Any, scene_id: int) -> Scene:
    """A scene the user may see; 404 (not 403) for the rest, so ids do not leak."""
    scene = scenes_for_user(user=user).filter(id=scene_id).first()
    if scene is None:
        raise Http404("no such scene")
    return scene


def scene_is_assigned(*, user: Any, scene: Scene) -> bool:
    return scene.assignments.filter(annotator=user).exists()


def marks_for_scene(*, user: Any, scene: Scene) -> QuerySet[Mark]:
    """Admins see every mark; annotators their own; reviewers the marks of submitted items."""
    return _visible_marks(user, Mark.objects.filter(scene=scene).select_related("satellite_image"))


def _visible_marks(user: Any, qs: QuerySet[Mark]) -> QuerySet[Mark]:
    roles = user_roles(user)
    if ADMIN in roles:
        return qs
    visible = Q(author=user)
    if REVIEWER in roles:
        submitted = Mark.objects.filter(
            items__state__in=[Item.State.IN_REVIEW, Item.State.APPROVED, Item.State.REJECTED]
        ).values("id")
        visible |= Q(id__in=submitted)
    return qs.filter(visible)


def mark_get(*, user: Any, mark_id: int) -> Mark:
    """One mark the user may see, with the image fields that editing and showing it need.
    Autosave calls this on every save: two plain queries compile faster than one with joins."""
    found = list(_visible_marks(user, Mark.objects.filter(id=mark_id))[:1])
    if not found:
        raise Http404("no such mark")
    mark = found[0]
    mark.satellite_image = SatelliteImage.objects.only("id", "width", "height", "georef").get(
        id=mark.satellite_image_id
    )
    return mark


@functools.cache
def _own_mark_sql() -> str:
    mark, image = Mark._meta.db_table, SatelliteImage._meta.db_table
    # Names come from the models, values are parameters.
    return (
        f"SELECT m.*, i.width AS image_width, i.height AS image_height, i.georef AS image_georef "  # noqa: S608
        f"FROM {mark} m JOIN {image} i ON i.id = m.satellite_image_id WHERE m.id = %s AND m.author_id = %s"
    )


def mark_for_edit(*, user: Any, mark_id: int) -> Mark:
    """The mark an autosave is about to change, with the image fields validation and the answer
    need. Only the author may edit, so the author's own mark needs no role lookup; anyone else
    gets mark_get's answer (404 when they may not see it; the service then refuses the edit).

    Autosave runs this on every save. Compiling the equivalent select_related query took the ORM
    about four times as long as running it, so the statement is written out (same result, both
    databases; tests/annotator/test_selectors.py compares the two)."""
    found = list(Mark.objects.raw(_own_mark_sql(), [mark_id, user.id]))
    if not found:
        return mark_get(user=user, mark_id=mark_id)
    mark = found[0]
    # A raw query leaves the joined JSON column as the database returned it (text on SQLite).
    georef = mark.image_georef  # type: ignore[attr-defined]
    mark.satellite_image = SatelliteImage.from_db(
        mark._state.db,
        ["id", "width", "height", "georef"],
        [
            mark.satellite_image_id,
            mark.image_width,  # type: ignore[attr-defined]
            mark.image_height,  # type: ignore[attr-defined]
            json.loads(georef) if isinstance(georef, str) else georef,
        ],
    )
    return mark


def keyframes_for_scene(*, scene: Scene) -> QuerySet[Keyframe]:
    return Keyframe.objects.filter(video_id=scene.video_id).order_by("index")


def telemetry_for_scene(*, scene: Scene) -> TelemetryTrack | None:
    return TelemetryTrack.objects.filter(scene=scene).prefetch_related("samples").first()


def satellite_image_get(*, user: Any, image_id: int) -> SatelliteImage:
    """An image of a scene the user may see; 404 otherwise (its existence is not revealed)."""
    image = SatelliteImage.objects.filter(id=image_id, scenes__in=scenes_for_user(user=user)).distinct().first()
    if image is None:
        raise Http404("no such image")
    return image


def items_for_user(*, user: Any, scene_id: int | None = None) -> QuerySet[Item]:
    """Admins: all items; annotators: their own. Reviewers use review.selectors (blind view)."""
    qs = (
        Item.objects.select_related("scene")
        .prefetch_related("marks")
        .annotate(
            approvals=Count("reviews", filter=Q(reviews__decision="approve")),
            rejections=Count("reviews", filter=Q(reviews__decision="reject")),
        )
    )
    if scene_id is not None:
        qs = qs.filter(scene_id=scene_id)
    if ADMIN in user_roles(user):
        return qs
    return qs.filter(author=user)


def item_get(*, user: Any, item_id: int) -> Item:
    item = items_for_user(user=user).filter(id=item_id).first()
    if item is None:
        raise Http404("no such item")
    return item


def assignments_for_scene(*, scene: Scene) -> QuerySet[Assignment]:
    return Assignment.objects.filter(scene=scene).select_related("annotator").order_by("id")


def jobs_for_scene(*, scene: Scene) -> list[MediaJob]:
    """The scene's video jobs, then the jobs of its satellite images (uses prefetched rows)."""
    jobs = list(scene.jobs.all())
    for image in scene.satellite_images.all():
        jobs.extend(image.jobs.all())
    return jobs
