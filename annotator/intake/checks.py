"""Checks of a scene import before anything is stored: media headers, georeference inputs and a
dry run of the fit, the telemetry track with its named columns, the annotators named. Each failure
is a field error naming the file as the person uploaded it."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

import media_tools
from annotator.intake.spec import CORNER_KEYS, MAX_DESCRIPTION, SceneSpec
from annotator.models import Scene
from media_tools.geo import georeference


def _telemetry_errors(spec: SceneSpec) -> dict[str, str]:
    """The track must read with the columns named for it; a mapping needs a track to apply to."""
    from media_tools.telemetry import ColumnError

    if spec.telemetry is None:
        return {"telemetry_columns": "no telemetry file to read these columns from"} if spec.telemetry_columns else {}
    try:
        media_tools.read_track(spec.telemetry, columns=spec.telemetry_columns)
    except ColumnError as exc:
        return {"telemetry_columns": shown_named(str(exc), spec.telemetry, spec.telemetry_name)}
    except media_tools.MediaError as exc:
        return {"telemetry": shown_named(str(exc), spec.telemetry, spec.telemetry_name)}
    return {}


def corners_clean(corners: dict[str, Any] | None) -> dict[str, list[float]] | None:
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


def gcps_clean(gcps: Any) -> list[list[float]] | None:
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


def spec_check(spec: SceneSpec) -> tuple[media_tools.VideoInfo, list[media_tools.ImageInfo]]:
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
        errors["video"] = shown_named(str(exc), spec.video, spec.video_name)
    images: list[media_tools.ImageInfo] = []
    if not spec.satellite and spec.keyframe_s is None:
        errors["satellite"] = "give at least one satellite image (or use a keyframe of the video)"
    for i, path in enumerate(spec.satellite):
        try:
            images.append(media_tools.inspect_image(path, max_pixels=settings.SKYMARK_MAX_IMAGE_PIXELS))
        except media_tools.MediaError as exc:
            shown = spec.satellite_names[i] if i < len(spec.satellite_names) else None
            errors["satellite"] = shown_named(str(exc), path, shown)
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


def shown_named(message: str, path: Path, shown: str | None) -> str:
    return message.replace(path.name, shown, 1) if shown else message


def _unknown_annotators(names: list[str]) -> list[str]:
    found = set(get_user_model().objects.filter(username__in=names).values_list("username", flat=True))
    return [n for n in names if n not in found]
