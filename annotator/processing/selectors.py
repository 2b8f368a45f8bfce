"""Reads of the processing stage: jobs, keyframes and telemetry of a scene the caller may see."""

from __future__ import annotations

from django.db.models import QuerySet

from annotator.models import Keyframe, MediaJob, Scene, TelemetryTrack


def jobs_for_scene(*, scene: Scene) -> list[MediaJob]:
    """The scene's video jobs, then the jobs of its satellite images (uses prefetched rows)."""
    jobs = list(scene.jobs.all())
    for image in scene.satellite_images.all():
        jobs.extend(image.jobs.all())
    return jobs


def keyframes_for_scene(*, scene: Scene) -> QuerySet[Keyframe]:
    return Keyframe.objects.filter(video_id=scene.video_id).order_by("index")


def telemetry_for_scene(*, scene: Scene) -> TelemetryTrack | None:
    return TelemetryTrack.objects.filter(scene=scene).prefetch_related("samples").first()
