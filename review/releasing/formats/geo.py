"""Marks of the released items per scene, as they were when compiled (the provenance snapshot):

- `geo/<scene>.geojson`: RFC 7946 GeoJSON in WGS84 [lon, lat]; ellipses become polygons (GeoJSON
  has no ellipse). Only scenes whose satellite image is georeferenced get one: GeoJSON has no
  other coordinate system, and image pixels are not one.
- `geo/<scene>.movingfeatures.json`: trajectories (polylines with a time per vertex) as OGC Moving
  Features JSON, one MovingPoint each. Times are the video's: `datetimes` count from the
  Unix epoch as the video's 0 s (properties.timeOrigin says so), since a clip carries no wall clock.
"""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from annotator.marking.geometry import geometry_lonlat
from media_tools.geo import GeoReference

from . import dumps

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "scene"


def _marks_by_scene(records: list[dict[str, Any]]) -> dict[str, dict[int, dict[str, Any]]]:
    """Scene -> mark id -> the mark as the items froze it, with the uids of the items using it."""
    scenes: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
    for record in records:
        for mark in record["provenance"].get("marks", []):
            entry = scenes[record["scene"]].setdefault(mark["id"], {**mark, "items": []})
            entry["items"].append(record["id"])
    return scenes


def _feature(mark: dict[str, Any], ref: GeoReference) -> dict[str, Any] | None:
    geometry = geometry_lonlat(mark["geometry"], ref)
    if geometry is None:
        return None
    geometry.pop("center", None)
    properties = {
        "mark": mark["id"],
        "version": mark["version"],
        "kind": mark["kind"],
        "label": mark["label"],
        "time_start_s": mark["time_start"],
        "time_end_s": mark["time_end"],
        "items": sorted(mark["items"]),
    }
    return {"type": "Feature", "id": mark["id"], "geometry": geometry, "properties": properties}


def _iso(seconds: float) -> str:
    return (EPOCH + timedelta(seconds=seconds)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _moving(mark: dict[str, Any], ref: GeoReference | None) -> dict[str, Any] | None:
    times = mark.get("vertex_times") or []
    coords = mark["geometry"].get("coordinates") or []
    if mark["kind"] != "polyline" or ref is None or len(times) != len(coords) or len(times) < 2:
        return None
    lonlat = geometry_lonlat({"type": "LineString", "coordinates": coords}, ref)
    assert lonlat is not None
    return {
        "type": "Feature",
        "id": mark["id"],
        "temporalGeometry": {
            "type": "MovingPoint",
            "datetimes": [_iso(t) for t in times],
            "coordinates": lonlat["coordinates"],
            "interpolation": "Linear",
        },
        "properties": {"label": mark["label"], "items": sorted(mark["items"]), "timeOrigin": "video start"},
    }


def write(root: Path, records: list[dict[str, Any]], georefs: dict[str, dict[str, Any]]) -> list[Path]:
    """One GeoJSON (and one Moving Features file when there are timed trajectories) per
    georeferenced scene. `georefs`: satellite image id (as text) -> georeference."""
    files = []
    refs = {int(k): GeoReference.from_dict(v) for k, v in georefs.items()}
    for scene, marks in sorted(_marks_by_scene(records).items()):
        ordered = [marks[k] for k in sorted(marks)]
        features = [
            f for m in ordered if m["satellite_image"] in refs for f in [_feature(m, refs[m["satellite_image"]])] if f
        ]
        if not features:
            continue
        path = root / "geo" / f"{slug(scene)}.geojson"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(dumps({"type": "FeatureCollection", "features": features}) + b"\n")
        files.append(path)
        moving = [f for m in ordered for f in [_moving(m, refs.get(m["satellite_image"]))] if f]
        if moving:
            path = root / "geo" / f"{slug(scene)}.movingfeatures.json"
            path.write_bytes(dumps({"type": "FeatureCollection", "features": moving}) + b"\n")
            files.append(path)
    return files
