"""Reads of the processing stage: jobs, keyframes and telemetry of a scene the caller may see."""

from __future__ import annotations

from typing import Any

from django.db.models import F, Q, QuerySet

from annotator.access.scopes import scenes_visible
from annotator.models import Keyframe, MediaJob, Scene, TelemetryTrack


def jobs_for_scene(*, scene: Scene) -> list[MediaJob]:
    """The scene's video jobs, then the jobs of its satellite images (uses prefetched rows)."""
    jobs = list(scene.jobs.all())
    for image in scene.satellite_images.all():
        jobs.extend(image.jobs.all())
    return jobs


def scene_jobs(*, scene: Scene) -> QuerySet[MediaJob]:
    """The jobs list's rows, in `jobs_for_scene`'s order (the video's, then each image's), as
    one query a page can slice: a scene with many images costs no query per image."""
    return MediaJob.objects.filter(Q(scene=scene) | Q(satellite_image__scenes=scene)).order_by(
        F("satellite_image_id").asc(nulls_first=True), "id"
    )


def keyframes_for_scene(*, scene: Scene) -> QuerySet[Keyframe]:
    return Keyframe.objects.filter(video_id=scene.video_id).order_by("index")


def telemetry_for_scene(*, scene: Scene) -> TelemetryTrack | None:
    return TelemetryTrack.objects.filter(scene=scene).prefetch_related("samples").first()


def jobs_visible(*, user: Any) -> QuerySet[MediaJob]:
    """Jobs of the scenes the user may see: a scene's own, and those of its images."""
    scenes = scenes_visible(user=user, qs=Scene.objects.all()).values("id")
    return MediaJob.objects.filter(Q(scene__in=scenes) | Q(satellite_image__scenes__in=scenes)).distinct()
