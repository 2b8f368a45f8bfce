"""Scene import: validate media up front, then create rows and files all-or-nothing."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from PIL import Image

import media_tools
from annotator.intake.checks import corners_clean, gcps_clean, shown_named, spec_check
from annotator.intake.spec import CORNER_KEYS, MAX_DESCRIPTION, SceneSpec
from annotator.models import FrameFootprint, Project, SatelliteImage, Scene, TelemetryTrack, Video, project_default_id
from annotator.processing.cvaa.footprints import frame_footprint_record
from annotator.processing.graph import jobs_create_for_image, jobs_create_for_scene
from annotator.processing.tasks import pipeline_start
from annotator.projects.services import assignment_create
from annotator.storage import delete_quietly, sha256_file, store_path
from media_tools.cvaa import footprint_from_georefs
from media_tools.geo import georef_from_gcps, orthophoto_from_frame

__all__ = ["CORNER_KEYS", "MAX_DESCRIPTION", "SceneSpec", "scene_import"]


@dataclass
class _ImageIn:
    """An image about to be stored for a scene, with its georeference inputs."""

    path: Path
    shown: str
    note: str = ""
    gcps: list[list[float]] | None = None
    # The image was made from the video frame at this time: where that frame lies on it (TL, TR, BR,
    # BL in image pixels) and how that is known (FrameFootprint.Source); CVAA previews use it.
    frame_time_s: float | None = None
    frame_quad: Any = None
    frame_source: str = ""


def scene_import(*, spec: SceneSpec, created_by: Any | None, project: Project | None = None) -> Scene:
    """Create a scene of `project` (the default project unless given) from local files. Raises
    ValidationError with field messages; on any failure no row and no stored file is left behind.
    Enqueues the first jobs on commit."""
    spec.name = spec.name.strip()
    spec.corners = corners_clean(spec.corners)
    spec.gcps = gcps_clean(spec.gcps)
    video_info, _ = spec_check(spec)
    stored: list[str] = []
    try:
        with tempfile.TemporaryDirectory(prefix="skymark-import-") as tmp:
            names = spec.satellite_names or [p.name for p in spec.satellite]
            images = [_ImageIn(p, n) for p, n in zip(spec.satellite, names, strict=False)]
            if spec.keyframe_s is not None:
                images.append(_frame_image(spec, video_info, Path(tmp)))
            elif spec.gcps:
                images[0].gcps = spec.gcps
            return _create_rows(spec, images, created_by, stored, project)
    except Exception:
        delete_quietly(stored)
        raise


def _frame_image(spec: SceneSpec, video_info: media_tools.VideoInfo, tmp: Path) -> _ImageIn:
    """The video's own frame as the scene's image: as is, or warped north-up with control points."""
    assert spec.keyframe_s is not None
    field_name = (
        "orthophoto_from_keyframe_s" if spec.orthophoto_from_keyframe_s is not None else ("satellite_from_keyframe_s")
    )
    # Named after the video as people know it (uploads arrive under temp names).
    stem = Path(spec.video_name or spec.video.name).stem
    frame = tmp / f"{stem}_keyframe.png"
    try:
        media_tools.extract_frame(
            spec.video, frame, time_s=min(spec.keyframe_s, video_info.duration_s), ffmpeg_bin=settings.SKYMARK_FFMPEG
        )
    except media_tools.MediaError as exc:
        # e.g. a time after the last frame: a field error (400), not a crash (500)
        raise ValidationError({field_name: shown_named(str(exc), spec.video, spec.video_name)}) from exc
    with Image.open(frame) as img:
        width, height = img.size
    at = min(spec.keyframe_s, video_info.duration_s)
    if spec.orthophoto_from_keyframe_s is None:
        note = (
            f"Not a satellite image: the video's own frame at {spec.keyframe_s:g} s, "
            "used until an orthophoto of this place is georeferenced."
        )
        whole = [[0, 0], [width, 0], [width, height], [0, height]]
        return _ImageIn(frame, frame.name, note, spec.gcps, at, whole, FrameFootprint.Source.SAME_FRAME)
    assert spec.gcps is not None
    ortho = tmp / f"{stem}_orthophoto.tif"
    try:
        ref, gcps = orthophoto_from_frame(frame, ortho, gcps=spec.gcps)
    except media_tools.MediaError as exc:
        raise ValidationError({"gcps": str(exc)}) from exc
    note = (
        f"Orthophoto made from the video's own frame at {spec.keyframe_s:g} s, warped north-up with "
        f"{len(gcps)} surveyed control points (fit RMS {ref.rms_m:.2f} m). Not a satellite image, "
        "but the same place at the same time as the video."
    )
    # The same control-point fit that warped the frame maps its corners onto the orthophoto.
    quad = footprint_from_georefs(georef_from_gcps(spec.gcps, width=width, height=height), ref)
    return _ImageIn(ortho, ortho.name, note, gcps, at, quad, FrameFootprint.Source.HOMOGRAPHY)


@transaction.atomic
def _create_rows(
    spec: SceneSpec, images: list[_ImageIn], created_by: Any | None, stored: list[str], project: Project | None
) -> Scene:
    video_name = spec.video_name or spec.video.name
    name = store_path(spec.video, f"videos/{video_name}")
    stored.append(name)
    video = Video.objects.create(
        file=name, original_name=video_name, sha256=sha256_file(spec.video), size_bytes=spec.video.stat().st_size
    )
    scene = Scene.objects.create(
        project_id=project.pk if project is not None else project_default_id(),
        name=spec.name,
        video=video,
        description=spec.description,
        source_license=spec.source_license,
        source_attribution=spec.source_attribution,
        created_by=created_by,
    )
    for image in images:
        sat = _satellite_get_or_create(image, spec, stored)
        scene.satellite_images.add(sat)
        if image.frame_time_s is not None:
            frame_footprint_record(
                scene=scene, image=sat, time_s=image.frame_time_s, quad=image.frame_quad, source=image.frame_source
            )
    if spec.telemetry is not None:
        shown = spec.telemetry_name or spec.telemetry.name
        track_name = store_path(spec.telemetry, f"telemetry/{shown}")
        stored.append(track_name)
        source = TelemetryTrack.Source.SRT if shown.lower().endswith(".srt") else TelemetryTrack.Source.CSV
        TelemetryTrack.objects.create(
            scene=scene, source=source, original=track_name, columns=dict(spec.telemetry_columns)
        )
    User = get_user_model()  # noqa: N806
    for username in spec.annotators:
        assignment_create(scene=scene, annotator=User.objects.get(username=username), assigned_by=created_by)
    pipeline_start(jobs=jobs_create_for_scene(scene=scene))
    return scene


def _satellite_get_or_create(image_in: _ImageIn, spec: SceneSpec, stored: list[str]) -> SatelliteImage:
    digest = sha256_file(image_in.path)
    existing = SatelliteImage.objects.filter(sha256=digest).first()
    if existing is not None:
        _refuse_new_georef_for(existing, image_in, spec)
        return existing  # the same image serves several scenes
    info = media_tools.inspect_image(image_in.path, max_pixels=settings.SKYMARK_MAX_IMAGE_PIXELS)
    name = store_path(image_in.path, f"satellite/{image_in.shown}")
    stored.append(name)
    world = ""
    if spec.world_file is not None:
        world = store_path(spec.world_file, f"satellite/{Path(image_in.shown).stem}{spec.world_file.suffix}")
        stored.append(world)
    image = SatelliteImage.objects.create(
        file=name,
        original_name=image_in.shown,
        sha256=digest,
        width=info.width,
        height=info.height,
        bands=info.bands,
        dtype=info.dtype[:16],
        corners=spec.corners,
        gcps=image_in.gcps,
        world_file=world,
        world_file_crs=spec.world_file_crs if world else "",
        provenance_note=image_in.note[:300],
    )
    pipeline_start(jobs=jobs_create_for_image(image=image))
    return image


def _refuse_new_georef_for(existing: SatelliteImage, image_in: _ImageIn, spec: SceneSpec) -> None:
    """An image already stored keeps its georeference, which other scenes' marks are placed with;
    different inputs for it are refused rather than silently dropped."""
    given = {"corners": spec.corners, "gcps": image_in.gcps, "world_file": spec.world_file}
    stored = {"corners": existing.corners, "gcps": existing.gcps, "world_file": existing.world_file.name or None}
    changed = [k for k, v in given.items() if v and (k == "world_file" or v != stored[k])]
    if changed:
        raise ValidationError(
            {
                changed[0]: f"{image_in.shown} is already stored (image {existing.id}) with its own georeference, "
                "which other scenes use; import it without corners, control points or a world file to reuse it "
                "as it is"
            }
        )
