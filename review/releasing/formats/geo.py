"""Marks of the released items per scene, as they were when compiled (the provenance snapshot):

- `geo/<scene>.geojson`: RFC 7946 GeoJSON in WGS84 [lon, lat]; ellipses become polygons (GeoJSON
  has no ellipse). Only scenes whose satellite image is georeferenced get one: GeoJSON has no
  other coordinate system, and image pixels are not one. Every polygon ring is closed and wound
  as RFC 7946 section 3.1.6 asks, in lon/lat (exterior counter-clockwise, holes clockwise): marks
  saved before rings were closed on write, and the y-down pixel grid that flips every winding, would
  otherwise give rings that GDAL-based readers refuse or read inside out.
- `geo/<scene>.movingfeatures.json`: trajectories (polylines with a time per vertex) as OGC Moving
  Features JSON, one MovingPoint each. Times are the video's: `datetimes` count from the
  Unix epoch as the video's 0 s (properties.timeOrigin says so), since a clip carries no wall clock.
  They carry a numeric UTC offset (`1970-01-01T00:00:00.500+00:00`), not `Z`: MEOS (pymeos'
  `from_mfjson`) parses the text as a PostgreSQL timestamptz without the zone abbreviation table
  and refuses `Z`. Instants are strictly increasing, as a MEOS sequence needs: vertices that share
  a millisecond (the annotation allows equal times) keep the first position.
"""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from shapely.geometry import Polygon
from shapely.geometry.polygon import orient

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


def _closed(ring: list[list[float]]) -> list[list[float]]:
    return ring if ring and ring[0] == ring[-1] else [*ring, ring[0]]


def rfc7946_rings(rings: list[list[list[float]]]) -> list[list[list[float]]]:
    """Close every ring and wind it by RFC 7946 (exterior counter-clockwise, holes clockwise) in
    the [lon, lat] plane the rings are given in."""
    closed = [_closed(r) for r in rings]
    polygon = orient(Polygon(closed[0], closed[1:]), sign=1.0)
    return [[list(p) for p in ring.coords] for ring in (polygon.exterior, *polygon.interiors)]


def _feature(mark: dict[str, Any], ref: GeoReference) -> dict[str, Any] | None:
    geometry = geometry_lonlat(mark["geometry"], ref)
    if geometry is None:
        return None
    geometry.pop("center", None)
    if geometry["type"] == "Polygon":
        geometry["coordinates"] = rfc7946_rings(geometry["coordinates"])
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
    # rounded to the millisecond (isoformat alone would truncate 1.9996 s to 1.999 s)
    return (EPOCH + timedelta(milliseconds=round(seconds * 1000))).isoformat(timespec="milliseconds")


def _instants(times: list[float], coords: list[list[float]]) -> tuple[list[str], list[list[float]]]:
    """Datetimes and positions with one position per distinct millisecond (the first one)."""
    stamps: list[str] = []
    kept: list[list[float]] = []
    for t, xy in zip(times, coords, strict=True):
        stamp = _iso(t)
        if not stamps or stamp != stamps[-1]:
            stamps.append(stamp)
            kept.append(xy)
    return stamps, kept


def _moving(mark: dict[str, Any], ref: GeoReference | None) -> dict[str, Any] | None:
    times = mark.get("vertex_times") or []
    coords = mark["geometry"].get("coordinates") or []
    if mark["kind"] != "polyline" or ref is None or len(times) != len(coords) or len(times) < 2:
        return None
    stamps, kept = _instants(times, coords)
    if len(stamps) < 2:
        return None  # every vertex at one instant: no movement to describe
    lonlat = geometry_lonlat({"type": "LineString", "coordinates": kept}, ref)
    assert lonlat is not None
    return {
        "type": "Feature",
        "id": mark["id"],
        "temporalGeometry": {
            "type": "MovingPoint",
            "datetimes": stamps,
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
