"""Validation of mark geometry in image pixels (shapely), with field messages for people."""

from __future__ import annotations

import math
from typing import Any

from django.core.exceptions import ValidationError
from shapely.geometry import LineString, Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.validation import explain_validity

# Far more than a person draws (a traced coastline is a few hundred); a 400,000-vertex polygon
# was stored and copied into every item's provenance before this limit.
MAX_VERTICES = 5_000


def _number(v: Any) -> bool:
    # JSON true/false arrive as Python bools, which are ints: not coordinates.
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _vertices(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ValidationError({"geometry": "expected a list of [x, y] vertices"})
    if len(value) > MAX_VERTICES:
        raise ValidationError({"geometry": f"{len(value):,} vertices; a mark has at most {MAX_VERTICES:,}"})
    return value


def _xy(value: Any, field: str) -> tuple[float, float]:
    if not (isinstance(value, list | tuple) and len(value) == 2 and all(_number(v) for v in value)):
        raise ValidationError({field: f"expected [x, y] in pixels, got {value!r}"})
    return float(value[0]), float(value[1])


def _inside(points: list[tuple[float, float]], width: int, height: int) -> None:
    for i, (x, y) in enumerate(points):
        if not (0 <= x <= width and 0 <= y <= height):
            raise ValidationError(
                {"geometry": f"vertex {i} ({x:.1f}, {y:.1f}) is outside the {width}x{height} px satellite image"}
            )


def _coords(geometry: dict[str, Any]) -> Any:
    coords = geometry.get("coordinates")
    if coords is None:
        raise ValidationError({"geometry": "missing 'coordinates'"})
    return coords


def _point(geometry: dict[str, Any]) -> tuple[BaseGeometry, list[tuple[float, float]]]:
    xy = _xy(_coords(geometry), "geometry")
    return Point(xy), [xy]


def _polyline(geometry: dict[str, Any]) -> tuple[BaseGeometry, list[tuple[float, float]]]:
    pts = [_xy(p, "geometry") for p in _vertices(_coords(geometry))]
    if len(pts) < 2:
        raise ValidationError({"geometry": "a trajectory needs at least 2 vertices"})
    return LineString(pts), pts


def _polygon(geometry: dict[str, Any]) -> tuple[BaseGeometry, list[tuple[float, float]]]:
    rings = _coords(geometry)
    if not isinstance(rings, list) or len(rings) != 1:
        raise ValidationError({"geometry": "a region is one outer ring: [[[x, y], ...]] (no holes)"})
    pts = [_xy(p, "geometry") for p in _vertices(rings[0])]
    if len(pts) > 1 and pts[0] == pts[-1]:
        pts = pts[:-1]
    if len(set(pts)) < 3:
        raise ValidationError({"geometry": "a region needs at least 3 distinct vertices"})
    poly = Polygon(pts)
    if not poly.is_valid:
        raise ValidationError({"geometry": f"the region is not a simple polygon ({explain_validity(poly)})"})
    if poly.area <= 0:
        raise ValidationError({"geometry": "the region has no area"})
    return poly, pts


def _ellipse(geometry: dict[str, Any]) -> tuple[BaseGeometry, list[tuple[float, float]]]:
    cx, cy = _xy(geometry.get("center"), "geometry")
    radii = geometry.get("radii")
    rx, ry = _xy(radii, "geometry")
    if rx <= 0 or ry <= 0:
        raise ValidationError({"geometry": "ellipse radii must be positive"})
    rot = geometry.get("rotation", 0)
    if not _number(rot):
        raise ValidationError({"geometry": "ellipse rotation must be a number of degrees"})
    poly = ellipse_polygon(cx, cy, rx, ry, float(rot))
    return poly, list(poly.exterior.coords)


def ellipse_polygon(cx: float, cy: float, rx: float, ry: float, rotation_deg: float, n: int = 64) -> Polygon:
    return Polygon(_ellipse_points(cx, cy, rx, ry, rotation_deg, n))


def _ellipse_points(
    cx: float, cy: float, rx: float, ry: float, rotation_deg: float, n: int
) -> list[tuple[float, float]]:
    t = math.radians(rotation_deg)
    pts = []
    for k in range(n):
        a = 2 * math.pi * k / n
        x, y = rx * math.cos(a), ry * math.sin(a)
        pts.append((cx + x * math.cos(t) - y * math.sin(t), cy + x * math.sin(t) + y * math.cos(t)))
    return pts


_PARSERS = {
    "point": ("Point", _point),
    "polyline": ("LineString", _polyline),
    "polygon": ("Polygon", _polygon),
    "ellipse": ("Ellipse", _ellipse),
}


def validate_geometry(kind: str, geometry: Any, *, width: int, height: int) -> BaseGeometry:
    """Check a mark's geometry against its kind and the image bounds; returns the shapely shape."""
    if kind not in _PARSERS:
        raise ValidationError({"kind": f"unknown mark kind {kind!r}"})
    expected, parse = _PARSERS[kind]
    if not isinstance(geometry, dict) or geometry.get("type") != expected:
        raise ValidationError({"geometry": f"a {kind} mark needs geometry of type {expected!r}"})
    shape, pts = parse(geometry)
    _inside(pts, width, height)
    return shape


def with_closed_rings(kind: str, geometry: dict[str, Any]) -> dict[str, Any]:
    """The geometry as it is stored: a region's ring closed (its first vertex repeated at the end),
    as GeoJSON requires of every ring; readers built on GDAL (geopandas, QGIS) refuse open ones.
    Call after validate_geometry, which has checked the ring. Returns a new dict."""
    if kind != "polygon":
        return geometry
    ring = [list(p) for p in geometry["coordinates"][0]]
    if ring[0] != ring[-1]:
        ring.append(list(ring[0]))
    return {**geometry, "coordinates": [ring]}


def region_shape(kind: str, geometry: dict[str, Any]) -> BaseGeometry:
    """The area a region-like mark covers (polygon or ellipse), for templates."""
    return _PARSERS[kind][1](geometry)[0]


def geometry_lonlat(geometry: dict[str, Any], ref: Any) -> dict[str, Any] | None:
    """The same geometry in WGS84 [lon, lat] (GeoJSON order) through a GeoReference, or None.
    An ellipse becomes its centre plus the outline as a polygon, since radii in degrees mean nothing."""
    return geometries_lonlat([geometry], ref)[0]


def geometries_lonlat(geometries: list[dict[str, Any]], ref: Any) -> list[dict[str, Any] | None]:
    """geometry_lonlat of each geometry (all on one image), with every vertex projected in one
    call. A list of marks projected ring by ring made a pyproj call per ring and a shapely polygon
    per ellipse: a quarter of a georeferenced scene's 48-mark read (bench/README.md)."""
    if ref is None:
        return [None] * len(geometries)
    rings: list[list[Any]] = []  # every list of [x, y] to project, in order
    shapes = [_rings_of(g, rings) for g in geometries]
    xs = [p[0] for ring in rings for p in ring]
    ys = [p[1] for ring in rings for p in ring]
    lon, lat = ref.pixel_to_lonlat(xs, ys) if xs else ([], [])
    flat = [[round(float(a), 8), round(float(b), 8)] for a, b in zip(lon, lat, strict=True)]
    projected, at = [], 0
    for ring in rings:
        projected.append(flat[at : at + len(ring)])
        at += len(ring)
    return [None if shape is None else shape(projected) for shape in shapes]


def _rings_of(geometry: dict[str, Any], rings: list[list[Any]]) -> Any:
    """Append the geometry's lists of pixel vertices to `rings`; return how to build its WGS84
    form from the projected rings (None for a type that has none)."""
    first = len(rings)
    kind = geometry.get("type")
    if kind == "Point":
        rings.append([geometry["coordinates"]])
        return lambda out: {"type": "Point", "coordinates": out[first][0]}
    if kind == "LineString":
        rings.append(geometry["coordinates"])
        return lambda out: {"type": "LineString", "coordinates": out[first]}
    if kind == "Polygon":
        rings.extend(geometry["coordinates"])
        count = len(geometry["coordinates"])
        return lambda out: {"type": "Polygon", "coordinates": out[first : first + count]}
    if kind == "Ellipse":
        (cx, cy), (rx, ry) = geometry["center"], geometry["radii"]
        outline = _ellipse_points(cx, cy, rx, ry, float(geometry.get("rotation", 0)), 32)
        rings.append([*outline, outline[0]])  # closed, as a polygon's exterior is
        rings.append([[cx, cy]])
        return lambda out: {"type": "Polygon", "coordinates": [out[first]], "center": out[first + 1][0]}
    return None
