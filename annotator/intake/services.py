"""Scene import: validate media up front, then create rows and files all-or-nothing."""

from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from PIL import Image

import media_tools
from annotator.models import FrameFootprint, Project, SatelliteImage, Scene, TelemetryTrack, Video, project_default_id
from annotator.processing.cvaa.footprints import frame_footprint_record
from annotator.processing.graph import jobs_create_for_image, jobs_create_for_scene
from annotator.processing.tasks import pipeline_start
from annotator.projects.services import assignment_create
from annotator.storage import delete_quietly, sha256_file, store_path
from media_tools.cvaa import footprint_from_georefs
from media_tools.geo import georef_from_gcps, georeference, orthophoto_from_frame

CORNER_KEYS = ("tl", "tr", "br", "bl")
# Text people write about a scene: room for a paragraph or two, not for a file pasted by mistake.
MAX_DESCRIPTION = 10_000


@dataclass
class SceneSpec:
    """One scene to import: local paths plus metadata (from a manifest row or an upload form)."""

    name: str
    video: Path
    satellite: list[Path] = field(default_factory=list)
    # Use the video frame at this time as the image when no satellite image is given.
    satellite_from_keyframe_s: float | None = None
    corners: dict[str, Any] | None = None
    # Control points [x, y, lat, lon] in the pixels of the scene's image (the keyframe when one is
    # used, else the single satellite image).
    gcps: list[list[float]] | None = None
    # Warp the video frame at this time north-up with the control points instead of using it as is.
    orthophoto_from_keyframe_s: float | None = None
    world_file: Path | None = None
    world_file_crs: str = ""
    # A drone track uploaded beside the video (CSV or DJI SRT), and the CSV columns named for its
    # fields where the names are nobody's guess (field -> column, "" = not in the file).
    telemetry: Path | None = None
    telemetry_columns: dict[str, str] = field(default_factory=dict)
    description: str = ""
    source_license: str = ""
    source_attribution: str = ""
    annotators: list[str] = field(default_factory=list)
    # Names as people uploaded them (uploads arrive under temp names).
    video_name: str | None = None
    satellite_names: list[str] = field(default_factory=list)
    telemetry_name: str | None = None

    @property
    def keyframe_s(self) -> float | None:
        return (
            self.orthophoto_from_keyframe_s
            if self.orthophoto_from_keyframe_s is not None
            else (self.satellite_from_keyframe_s)
        )


def _telemetry_errors(spec: SceneSpec) -> dict[str, str]:
    """The track must read with the columns named for it; a mapping needs a track to apply to."""
    from media_tools.telemetry import ColumnError

    if spec.telemetry is None:
        return {"telemetry_columns": "no telemetry file to read these columns from"} if spec.telemetry_columns else {}
    try:
        media_tools.read_track(spec.telemetry, columns=spec.telemetry_columns)
    except ColumnError as exc:
        return {"telemetry_columns": _named(str(exc), spec.telemetry, spec.telemetry_name)}
    except media_tools.MediaError as exc:
        return {"telemetry": _named(str(exc), spec.telemetry, spec.telemetry_name)}
    return {}


def _validate_corners(corners: dict[str, Any] | None) -> dict[str, list[float]] | None:
    if corners is None:
        return None
    if not isinstance(corners, dict) or set(corners) != set(CORNER_KEYS):
        raise ValidationError({"corners": "give all four corners tl, tr, br, bl as [lat, lon]"})
    clean: dict[str, list[float]] = {}
    for key in CORNER_KEYS:
        value = corners[key]
        try:
            lat, lon = (_number(v) for v in value)
        except (TypeError, ValueError):
            raise ValidationError({"corners": f"corner {key}: expected [lat, lon], got {value!r}"}) from None
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            raise ValidationError({"corners": f"corner {key}: ({lat}, {lon}) is not a WGS84 lat/lon"})
        clean[key] = [lat, lon]
    return clean


def _validate_gcps(gcps: Any) -> list[list[float]] | None:
    if gcps is None:
        return None
    if not isinstance(gcps, list) or len(gcps) < 3:
        raise ValidationError({"gcps": "give at least 3 control points as [x, y, lat, lon]"})
    clean = []
    for n, point in enumerate(gcps, 1):
        try:
            x, y, lat, lon = (_number(v) for v in point)
        except (TypeError, ValueError):
            raise ValidationError({"gcps": f"control point {n}: expected [x, y, lat, lon], got {point!r}"}) from None
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            raise ValidationError({"gcps": f"control point {n}: ({lat}, {lon}) is not a WGS84 lat/lon"})
        clean.append([x, y, lat, lon])
    for what, pick in (("pixel position", slice(0, 2)), ("lat/lon", slice(2, 4))):
        seen: dict[tuple[float, ...], int] = {}
        for n, point in enumerate(clean, 1):
            if (key := tuple(point[pick])) in seen:
                raise ValidationError({"gcps": f"control points {seen[key]} and {n} have the same {what}"})
            seen[key] = n
    return clean


def _number(value: Any) -> float:
    """A finite number; booleans are not numbers here (JSON true would read as 1)."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a coordinate")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError("not finite")
    return number


def _georef_field(spec: SceneSpec) -> str:
    return "world_file" if spec.world_file else "corners" if spec.corners else "gcps"


def _georef_dry_run(spec: SceneSpec, images: list[media_tools.ImageInfo]) -> dict[str, str]:
    """Fit the georeference the job would fit, now, so impossible inputs (collinear control points,
    a zero-pixel or huge world file, an unknown CRS) are refused at upload with the field named
    instead of failing later in a job."""
    if not (spec.corners or spec.gcps or spec.world_file) or len(spec.satellite) != 1 or spec.keyframe_s is not None:
        return {}
    info = images[0]
    try:
        ref = georeference(
            spec.satellite[0],
            world_file=spec.world_file,
            world_file_crs=spec.world_file_crs or None,
            corners=spec.corners,
            gcps=spec.gcps,
            width=info.width,
            height=info.height,
        )
        corners = ref.corners()
        gsd = ref.gsd_m()
    except media_tools.MediaError as exc:
        return {_georef_field(spec): str(exc)}
    except Exception as exc:  # pyproj/numpy: the transform leaves the Earth or is singular
        return {_georef_field(spec): f"these inputs do not place the image on the Earth ({exc})"}
    on_earth = all(-90 <= lat <= 90 and -180 <= lon <= 180 for lat, lon in corners.values())
    if not on_earth or not 1e-4 <= gsd <= 1e5:
        return {_georef_field(spec): f"these inputs give {gsd:.3g} m per pixel or corners off the Earth; check them"}
    return {}


def _validate(spec: SceneSpec) -> tuple[media_tools.VideoInfo, list[media_tools.ImageInfo]]:
    errors: dict[str, str] = {}
    if not spec.name.strip():
        errors["name"] = "a scene needs a name"
    elif Scene.objects.filter(name=spec.name.strip()).exists():
        errors["name"] = f"a scene named {spec.name.strip()!r} already exists"
    for name, value, most in (
        ("description", spec.description, MAX_DESCRIPTION),
        ("license", spec.source_license, 200),
        ("attribution", spec.source_attribution, MAX_DESCRIPTION),
    ):
        if len(value) > most:
            errors[name] = f"{len(value):,} characters; at most {most:,}"
    video_info = None
    try:
        video_info = media_tools.probe_video(spec.video, ffprobe_bin=settings.SKYMARK_FFPROBE)
    except media_tools.MediaError as exc:
        errors["video"] = _named(str(exc), spec.video, spec.video_name)
    images: list[media_tools.ImageInfo] = []
    if not spec.satellite and spec.keyframe_s is None:
        errors["satellite"] = "give at least one satellite image (or use a keyframe of the video)"
    for i, path in enumerate(spec.satellite):
        try:
            images.append(media_tools.inspect_image(path, max_pixels=settings.SKYMARK_MAX_IMAGE_PIXELS))
        except media_tools.MediaError as exc:
            shown = spec.satellite_names[i] if i < len(spec.satellite_names) else None
            errors["satellite"] = _named(str(exc), path, shown)
    errors.update(_georef_input_errors(spec))
    if not errors and images:
        errors.update(_georef_dry_run(spec, images))
    errors.update(_telemetry_errors(spec))
    unknown = _unknown_annotators(spec.annotators)
    if unknown:
        errors["annotators"] = f"no annotator named {', '.join(unknown)}"
    if errors:
        raise ValidationError(errors)
    assert video_info is not None
    return video_info, images


def _georef_input_errors(spec: SceneSpec) -> dict[str, str]:
    errors: dict[str, str] = {}
    images = len(spec.satellite) + (spec.keyframe_s is not None)
    if spec.orthophoto_from_keyframe_s is not None and not spec.gcps:
        errors["gcps"] = "an orthophoto from a keyframe needs ground control points (x, y, lat, lon)"
    if spec.orthophoto_from_keyframe_s is not None and spec.satellite_from_keyframe_s is not None:
        errors["orthophoto_from_keyframe_s"] = "use the frame as is or as an orthophoto, not both"
    if (spec.gcps or spec.corners or spec.world_file) and images != 1:
        errors["gcps" if spec.gcps else "corners" if spec.corners else "world_file"] = (
            f"control points, corners and world files describe one image; this scene has {images}"
        )
    if spec.world_file is not None and not spec.world_file.is_file():
        errors["world_file"] = f"{spec.world_file.name}: file not found"
    if spec.world_file is not None and not spec.world_file_crs:
        errors["world_file_crs"] = "a world file needs the CRS its coordinates are in (e.g. EPSG:32631)"
    return errors


def _named(message: str, path: Path, shown: str | None) -> str:
    return message.replace(path.name, shown, 1) if shown else message


def _unknown_annotators(names: list[str]) -> list[str]:
    found = set(get_user_model().objects.filter(username__in=names).values_list("username", flat=True))
    return [n for n in names if n not in found]


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
    spec.corners = _validate_corners(spec.corners)
    spec.gcps = _validate_gcps(spec.gcps)
    video_info, _ = _validate(spec)
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
        raise ValidationError({field_name: _named(str(exc), spec.video, spec.video_name)}) from exc
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
