"""Reads of the processing stage: jobs, keyframes and telemetry of a scene the caller may see."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, F, Q, QuerySet

from annotator.access.scopes import scenes_visible
from annotator.models import Keyframe, MediaJob, Scene, TelemetrySample, TelemetryTrack


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


# The fields a telemetry footprint needs, as the admin names their columns at import.
_FOOTPRINT_FIELDS = (("height_m", "height above take-off"), ("heading_deg", "heading"))


def telemetry_warning(*, scene: Scene) -> str:
    """Why the scene's telemetry places no keyframe, naming the missing field; "" when it can (or the
    telemetry job has not finished yet). One or two queries."""
    job = MediaJob.objects.filter(scene=scene, kind=MediaJob.Kind.TELEMETRY).values_list("state", flat=True).first()
    if job != MediaJob.State.SUCCEEDED:
        return ""
    samples = TelemetrySample.objects.filter(track__scene=scene).aggregate(
        n=Count("id"), **{name: Count("id", filter=Q(**{f"{name}__isnull": False})) for name, _ in _FOOTPRINT_FIELDS}
    )
    if not samples["n"]:
        return (
            "No usable telemetry: the video has no GPMF track and no flight log was uploaded, so no keyframe "
            "gets a telemetry footprint."
        )
    missing = [f"{words} ({name})" for name, words in _FOOTPRINT_FIELDS if not samples[name]]
    if missing:
        return (
            f"No usable telemetry: none of the {samples['n']} samples has a {' or a '.join(missing)}, so no "
            "keyframe gets a telemetry footprint; import the flight log again naming that column."
        )
    return ""
