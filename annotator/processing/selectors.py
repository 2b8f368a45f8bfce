"""Reads of the processing stage: jobs, keyframes and telemetry of a scene the caller may see."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, F, Q, QuerySet

from annotator.access.scopes import scenes_visible
from annotator.models import Keyframe, KeyframePlacement, MediaJob, Scene, TelemetrySample, TelemetryTrack


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


@dataclass
class PlacementNotes:
    """What the scene page says about where keyframes look, only where a person can act on it: what an
    uploaded telemetry track lacks (`telemetry`), and per satellite image the keyframes no source placed
    and a missing georeference (`images`). A scene placed by its control points and matching says nothing."""

    telemetry: str = ""
    images: list[str] = field(default_factory=list)


def placement_notes(*, scene: Scene) -> PlacementNotes:
    """The scene's PlacementNotes, from the telemetry and placements jobs' results (nothing before they
    end). At most five queries, six with a flight log."""
    states = dict(
        MediaJob.objects.filter(scene=scene, kind__in=[MediaJob.Kind.TELEMETRY, MediaJob.Kind.PLACEMENTS]).values_list(
            "kind", "state"
        )
    )
    done = MediaJob.State.SUCCEEDED
    notes = PlacementNotes()
    samples: dict[str, int] = {"n": 0}
    if states.get(MediaJob.Kind.TELEMETRY) == done:
        samples = TelemetrySample.objects.filter(track__scene=scene).aggregate(
            n=Count("id"), **{k: Count("id", filter=Q(**{f"{k}__isnull": False})) for k, _ in _FOOTPRINT_FIELDS}
        )
        missing = [f"{words} ({name})" for name, words in _FOOTPRINT_FIELDS if samples["n"] and not samples[name]]
        if missing:  # uploaded, yet it places nothing: always worth saying, naming the column
            notes.telemetry = (
                f"No usable telemetry: none of the {samples['n']} samples has a {' or a '.join(missing)}, so no "
                "keyframe gets a telemetry footprint; import the flight log again naming that column."
            )
    if states.get(MediaJob.Kind.PLACEMENTS) != done:
        return notes
    keyframes = Keyframe.objects.filter(video_id=scene.video_id).count()
    images = list(scene.satellite_images.order_by("id").values_list("id", "original_name", "georef"))
    placed = dict(
        KeyframePlacement.objects.filter(
            keyframe__video_id=scene.video_id, satellite_image__in=[i for i, _, _ in images]
        )
        .values("satellite_image")
        .annotate(n=Count("id"))
        .values_list("satellite_image", "n")
    )
    unplaced_on_georeferenced = False
    for image_id, name, georef in images:
        if left := keyframes - placed.get(image_id, 0):
            notes.images.append(
                f"{name}: {left} of {keyframes} keyframes could not be placed by any source (control points, "
                "feature matching, chaining, telemetry or the learned retriever), so the workspace shows no "
                "footprint for them."
            )
            unplaced_on_georeferenced |= bool(georef)
        if not georef:
            notes.images.append(
                f"{name} has no georeference: placements on it are in its pixels only (no metres), and telemetry "
                "cannot place keyframes on it; add one (GeoTIFF, world file or corner coordinates) to have both."
            )
    if samples["n"]:  # only a flight log gives telemetry footprints to check
        notes.images.extend(_telemetry_disagreements(scene, {i: n for i, n, _ in images}, keyframes))
    if unplaced_on_georeferenced and states.get(MediaJob.Kind.TELEMETRY) == done and not samples["n"]:
        notes.telemetry = (
            "No telemetry: the video has no GPMF track and no flight log was uploaded; a flight log with the "
            "height above take-off and the heading would place the keyframes nothing else placed."
        )
    return notes


# A heading this far from the verified placement's is the flight log's frame of reference, not noise:
# a yaw recorded reversed (seen on the return leg of real DJI surveys) or for another axis.
_REVERSED_DEG = 150.0


def _telemetry_disagreements(scene: Scene, names: dict[int, str], keyframes: int) -> list[str]:
    """Per image, the keyframes whose telemetry footprint disagrees with the verified placement that won
    (details["telemetry_check"], cvaa/agreement.py), said so a person knows which column to fix."""
    rows = (
        KeyframePlacement.objects.filter(keyframe__video_id=scene.video_id, details__telemetry_check__agrees=False)
        .order_by("satellite_image_id", "keyframe__index")
        .values_list("satellite_image_id", "keyframe__time_s", "source", "details")
    )
    by_image: dict[int, list[tuple[float, str, dict[str, Any]]]] = {}
    for image_id, time_s, source, details in rows:
        by_image.setdefault(image_id, []).append((time_s, source, details["telemetry_check"]))
    notes = []
    for image_id, found in by_image.items():
        times = ", ".join(f"{t:g} s" for t, _, _ in found[:8]) + (", …" if len(found) > 8 else "")
        sources = " and ".join(sorted({s.replace("_", " ") for _, s, _ in found}))
        reversed_ = [c["heading_deg"] for _, _, c in found if c["heading_deg"] >= _REVERSED_DEG]
        off = [c["centre_m"] if c["centre_m"] is not None else c["centre_px"] for _, _, c in found]
        unit = "m" if all(c["centre_m"] is not None for _, _, c in found) else "px"
        cause = (
            f"its heading is turned {_span(reversed_, '°', 0)} on {len(reversed_)} of them (a yaw recorded reversed?)"
            if reversed_
            else f"its footprints are {_span(off, ' ' + unit, 1)} off, or turned beyond the heading error"
        )
        notes.append(
            f"{names.get(image_id, image_id)}: the flight log disagrees with {sources} on {len(found)} of "
            f"{keyframes} keyframes (at {times}): {cause}. The workspace shows the {sources} footprints; fix "
            "the log's heading or position column and import it again before relying on telemetry where "
            "nothing else places a keyframe."
        )
    return notes


def _span(values: list[float], unit: str, digits: int) -> str:
    """ "178–183°", or "180°" when they are all one value at that precision."""
    low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
    return f"{low}{unit}" if low == high else f"{low}–{high}{unit}"
