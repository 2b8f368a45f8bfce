"""Reads of scenes, their images and assignments, scoped to the user asking. Lists prefetch
what they show, so their query count does not grow with the rows."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, QuerySet
from django.http import Http404

from annotator.access.scopes import scene_get_visible, scenes_visible
from annotator.models import Assignment, MediaJob, SatelliteImage, Scene


def scenes_for_user(*, user: Any) -> QuerySet[Scene]:
    qs = Scene.objects.select_related("video", "project").prefetch_related(
        Prefetch(
            "satellite_images",
            queryset=SatelliteImage.objects.prefetch_related(
                Prefetch("jobs", queryset=MediaJob.objects.order_by("id"))
            ),
        ),
        Prefetch("jobs", queryset=MediaJob.objects.order_by("id")),
    )
    return scenes_visible(user=user, qs=qs)


def scene_get(*, user: Any, scene_id: int) -> Scene:
    """A scene the user may see, with what its page and API show; 404 for the rest."""
    return scene_get_visible(user=user, scene_id=scene_id, qs=scenes_for_user(user=user))


def scene_get_bare(*, user: Any, scene_id: int) -> Scene:
    """A scene the user may see, without what its page shows; 404 for the rest. For APIs that only
    need to know the scene is visible (its marks): `scene_get` also reads the video, every satellite
    image with its media jobs and the scene's jobs, and at the benchmark's shape (29 images a scene)
    that read was 40 % of a mark save's server time under the profiler (bench/README.md)."""
    return scene_get_visible(user=user, scene_id=scene_id)


def satellite_image_get(*, user: Any, image_id: int) -> SatelliteImage:
    """An image of a scene the user may see; 404 otherwise (its existence is not revealed)."""
    visible = scenes_visible(user=user, qs=Scene.objects.all())
    image = SatelliteImage.objects.filter(id=image_id, scenes__in=visible).distinct().first()
    if image is None:
        raise Http404("no such image")
    return image


def assignments_for_scene(*, scene: Scene) -> QuerySet[Assignment]:
    return Assignment.objects.filter(scene=scene).select_related("annotator").order_by("id")
