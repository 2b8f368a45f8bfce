"""Turn uploaded files into local paths for scene_import, cleaning up afterwards."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile

from annotator.intake.services import SceneSpec
from media_tools.errors import MediaError
from media_tools.geo import read_gcp_csv


@contextmanager
def uploads_on_disk(files: list[UploadedFile]) -> Iterator[list[Path]]:
    with tempfile.TemporaryDirectory(prefix="skymark-upload-") as tmp:
        paths = []
        for i, upload in enumerate(files):
            suffix = Path(upload.name or "").suffix.lower()[:10]
            path = Path(tmp) / f"upload{i}{suffix}"
            with path.open("wb") as fh:
                for chunk in upload.chunks():
                    fh.write(chunk)
            paths.append(path)
        yield paths


def _gcps(value: Any, path: Path | None, shown: str) -> list[list[float]] | None:
    """Control points inline (a list of [x, y, lat, lon]) or from an uploaded CSV."""
    if path is None:
        return value or None
    try:
        return [list(p) for p in read_gcp_csv(path)]
    except MediaError as exc:
        raise ValidationError({"gcps": str(exc).replace(path.name, shown)}) from exc


@contextmanager
def scene_spec_from_uploads(v: Mapping[str, Any]) -> Iterator[SceneSpec]:
    """A SceneSpec over local copies of an upload form's or API call's files (validated values)."""
    gcps_upload = v.get("gcps") if isinstance(v.get("gcps"), UploadedFile) else None
    singles = {
        k: f
        for k, f in (
            ("video", v["video"]),
            ("gcps", gcps_upload),
            *((k, v.get(k)) for k in ("world_file", "telemetry")),
        )
        if f
    }
    satellite = list(v.get("satellite") or [])
    with uploads_on_disk([*singles.values(), *satellite]) as paths:
        local = dict(zip(singles, paths, strict=False))
        yield SceneSpec(
            name=v["name"],
            video=local["video"],
            satellite=paths[len(singles) :],
            corners=v.get("corners"),
            gcps=_gcps(None if gcps_upload else v.get("gcps"), local.get("gcps"), getattr(gcps_upload, "name", "")),
            satellite_from_keyframe_s=v.get("satellite_from_keyframe_s"),
            orthophoto_from_keyframe_s=v.get("orthophoto_from_keyframe_s"),
            world_file=local.get("world_file"),
            world_file_crs=v.get("world_file_crs") or "",
            telemetry=local.get("telemetry"),
            telemetry_name=v["telemetry"].name if v.get("telemetry") else None,
            telemetry_columns=dict(v.get("telemetry_columns") or {}),
            description=v.get("description") or "",
            source_license=v.get("license") or "",
            source_attribution=v.get("attribution") or "",
            annotators=list(v.get("annotators") or []),
            video_name=v["video"].name,
            satellite_names=[f.name for f in satellite],
        )


def telemetry_preview(*, upload: UploadedFile) -> dict[str, Any]:
    """What preview_csv_track sees in an uploaded track, with the fields it can fill; a file that is
    not a readable CSV is a field error on `telemetry`."""
    from media_tools.telemetry import FIELDS, LABELS, REQUIRED, preview_csv_track

    shown = upload.name or "track"
    if not shown.lower().endswith(".csv"):
        raise ValidationError({"telemetry": f"{shown}: columns can be named for a CSV track only"})
    with uploads_on_disk([upload]) as [path]:
        try:
            preview = preview_csv_track(path)
        except MediaError as exc:
            raise ValidationError({"telemetry": str(exc).replace(path.name, shown)}) from exc
    return {
        "header": preview.header,
        "rows": preview.rows,
        "columns": preview.columns,
        "fields": [{"name": f, "label": LABELS[f], "required": f in REQUIRED} for f in FIELDS],
    }
