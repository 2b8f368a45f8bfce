"""Reading scene manifests (JSON or CSV) into SceneSpecs. Paths are relative to the manifest and
must lie under its root (the manifest's folder unless the importer names another): an absolute
path or a `../` that leaves the root is refused, so a manifest cannot make the server read any file
it can reach (keys, other users' media)."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotator.intake.services import CORNER_KEYS, SceneSpec
from media_tools.errors import MediaError
from media_tools.geo import read_gcp_csv


class ManifestError(ValueError):
    """The manifest as a whole cannot be read."""


@dataclass
class ManifestRow:
    number: int
    spec: SceneSpec | None
    error: str | None = None


def _split(value: str) -> list[str]:
    return [part.strip() for part in value.split(";") if part.strip()]


def _csv_corners(text: str) -> dict[str, Any] | None:
    if not text.strip():
        return None
    pairs = _split(text)
    if len(pairs) != 4:
        raise ValueError("corners: give 4 'lat,lon' pairs separated by ';' in the order tl;tr;br;bl")
    return {key: [float(v) for v in pair.split(",")] for key, pair in zip(CORNER_KEYS, pairs, strict=True)}


@dataclass(frozen=True)
class _Where:
    base: Path  # the manifest's folder: relative paths start here
    root: Path  # every path must resolve under it (symbolic links followed)

    def path(self, value: Any, name: str) -> Path:
        text = str(value)
        if Path(text).is_absolute():
            raise ValueError(f"{name}: {text}: give a path relative to the manifest, not an absolute one")
        path = (self.base / text).resolve()
        if not path.is_relative_to(self.root):
            raise ValueError(f"{name}: {text}: lies outside the manifest's root {self.root}; put the file under it")
        return path


def _existing(where: _Where, value: Any, name: str) -> Path | None:
    if value in (None, ""):
        return None
    path = where.path(value, name)
    if not path.is_file():
        raise ValueError(f"{name}: {value}: file not found")
    return path


def _gcps(value: Any, where: _Where) -> list[list[float]] | None:
    """Control points inline ([[x, y, lat, lon], ...]) or as a CSV file beside the manifest."""
    if value in (None, ""):
        return None
    if isinstance(value, list):
        return value
    path = _existing(where, value, "gcps")
    assert path is not None
    try:
        return [list(p) for p in read_gcp_csv(path)]
    except MediaError as exc:
        raise ValueError(f"gcps: {exc}") from exc


def telemetry_columns(value: Any) -> dict[str, str]:
    """Columns named for a CSV track: an object {"height_m": "rel_alt_m", ...} (JSON manifests, the
    API), or "height_m=rel_alt_m; heading_deg=gimbal_yaw_deg" in a CSV manifest's cell."""
    if value in (None, ""):
        return {}
    if isinstance(value, str):
        pairs = [p.partition("=") for p in _split(value)]
        if any(not sep for _, sep, _ in pairs):
            raise ValueError("telemetry_columns: expected field=column pairs separated by ';'")
        value = {k.strip(): v.strip() for k, _, v in pairs}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ValueError('telemetry_columns: expected {"field": "column", ...} with text values')
    return dict(value)


def _spec(raw: dict[str, Any], where: _Where) -> SceneSpec:
    if not raw.get("name"):
        raise ValueError("name: missing")
    if not raw.get("video"):
        raise ValueError("video: missing")
    satellite = raw.get("satellite") or []
    if isinstance(satellite, str):
        satellite = _split(satellite)
    keyframe = raw.get("satellite_from_keyframe_s")
    ortho = raw.get("orthophoto_from_keyframe_s")
    annotators = raw.get("annotators") or []
    if isinstance(annotators, str):
        annotators = _split(annotators)
    return SceneSpec(
        name=str(raw["name"]),
        video=where.path(raw["video"], "video"),
        satellite=[where.path(s, "satellite") for s in satellite],
        satellite_from_keyframe_s=float(keyframe) if keyframe not in (None, "") else None,
        orthophoto_from_keyframe_s=float(ortho) if ortho not in (None, "") else None,
        corners=raw.get("corners"),
        gcps=_gcps(raw.get("gcps"), where),
        world_file=where.path(raw["world_file"], "world_file") if raw.get("world_file") else None,
        world_file_crs=str(raw.get("world_file_crs") or ""),
        telemetry=_existing(where, raw.get("telemetry"), "telemetry"),
        telemetry_columns=telemetry_columns(raw.get("telemetry_columns")),
        description=str(raw.get("description") or ""),
        source_license=str(raw.get("license") or ""),
        source_attribution=str(raw.get("attribution") or ""),
        annotators=list(annotators),
    )


def read_manifest(path: Path, *, root: Path | None = None) -> list[ManifestRow]:
    """Parse every row; a bad row becomes a ManifestRow with an error, the rest still parse. Media
    paths must lie under `root` (default: the manifest's folder)."""
    if not path.is_file():
        raise ManifestError(f"{path}: manifest not found")
    where = _Where(base=path.parent.resolve(), root=(root or path.parent).resolve())
    if not where.base.is_relative_to(where.root):
        raise ManifestError(f"{path}: the manifest lies outside its root {where.root}")
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(path.read_text())
            raws = data["scenes"] if isinstance(data, dict) else data
            if not isinstance(raws, list):
                raise ManifestError(f"{path.name}: expected a list of scenes or {{'scenes': [...]}}")
        elif path.suffix.lower() == ".csv":
            with path.open(newline="") as fh:
                raws = list(csv.DictReader(fh))
        else:
            raise ManifestError(f"{path.name}: a manifest is .json or .csv")
    except (json.JSONDecodeError, KeyError, UnicodeDecodeError, csv.Error) as exc:
        raise ManifestError(f"{path.name}: cannot read ({exc})") from exc
    rows = []
    for number, raw in enumerate(raws, 1):
        try:
            if not isinstance(raw, dict):
                raise ValueError("expected an object")
            if isinstance(raw.get("corners"), str):
                raw = {**raw, "corners": _csv_corners(raw["corners"])}
            rows.append(ManifestRow(number, _spec(raw, where)))
        except ValueError as exc:
            rows.append(ManifestRow(number, None, str(exc)))
    return rows
