"""What geometry decides for the QA templates: where a mark is, which way and how far one place
lies from another, how much two regions overlap.

Pixels are the marks' own (x right, y down). Directions and distances go through the satellite
image's georeference when it has one: bearings from true north and lengths in metres on the WGS84
ellipsoid (pyproj.Geod). Without one, image up stands in for north and lengths stay in pixels;
every result says which frame it used, so a question can say so too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from pyproj import Geod
from shapely.geometry import Point, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from annotator.marking.geometry import region_shape
from annotator.models import Mark
from media_tools.geo import GeoReference

from .errors import TemplateError

_GEOD = Geod(ellps="WGS84")

XY = tuple[float, float]

# The eight compass sectors, clockwise from north; each spans 45 degrees centred on its name.
SECTORS = ("north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west")
SECTOR_WIDTH_DEG = 360 / len(SECTORS)

# What each kind of mark stands for (DESIGN: ellipse = target instance, point = key location,
# polygon = region, polyline = trajectory). A region role takes polygons only: an ellipse is a
# target (a car), and read as a region it makes questions such as "which way from the car 2 to the
# car 1". Points and ellipses are where something is: an event's place, a counted instance.
REGION_KINDS = (Mark.Kind.POLYGON,)
SPOT_KINDS = (Mark.Kind.POINT, Mark.Kind.ELLIPSE)


@dataclass(frozen=True)
class Frame:
    """How directions and lengths are measured on one satellite image."""

    georef: GeoReference | None

    @property
    def north(self) -> str:
        return "true north" if self.georef else "image up"

    @property
    def unit(self) -> str:
        return "m" if self.georef else "px"


def frame_of(mark: Mark) -> Frame:
    """The measuring frame of the mark's satellite image (loaded with the mark by the service)."""
    record = mark.satellite_image.georef
    if not record:
        return Frame(None)
    try:
        return Frame(GeoReference.from_dict(record))
    except ValueError as exc:
        raise TemplateError(
            "satellite_image",
            f"the georeference of {mark.satellite_image} cannot be read ({exc}); run its georeference job again",
        ) from exc


def region_of(mark: Mark) -> Polygon:
    """The area a polygon or ellipse mark covers, in pixels."""
    shape = region_shape(mark.kind, mark.geometry)
    assert isinstance(shape, Polygon)
    return shape


def spot_of(mark: Mark) -> XY:
    """Where a point or ellipse mark sits: the point itself or the ellipse's centre."""
    if mark.kind == Mark.Kind.POINT:
        x, y = mark.geometry["coordinates"]
    else:
        x, y = mark.geometry["center"]
    return float(x), float(y)


def centroid(shape: BaseGeometry) -> XY:
    c = shape.centroid
    return float(c.x), float(c.y)


def _lonlat(frame: Frame, *points: XY) -> list[XY]:
    assert frame.georef is not None
    lon, lat = frame.georef.pixel_to_lonlat([p[0] for p in points], [p[1] for p in points])
    return [(float(a), float(b)) for a, b in zip(lon, lat, strict=True)]


def bearing_deg(frame: Frame, origin: XY, target: XY) -> float:
    """Clockwise angle in [0, 360) from north at `origin` to `target`. With a georeference: the
    forward azimuth of the geodesic on the WGS84 ellipsoid (true north), which stays right for
    rotated or sheared images; without one: image up is 0 and image right is 90."""
    if frame.georef is None:
        dx, dy = target[0] - origin[0], target[1] - origin[1]
        return math.degrees(math.atan2(dx, -dy)) % 360.0
    (lon1, lat1), (lon2, lat2) = _lonlat(frame, origin, target)
    azimuth, _, _ = _GEOD.inv(lon1, lat1, lon2, lat2)
    return float(azimuth) % 360.0


def sector_of(bearing: float) -> str:
    """The compass sector of a bearing. Sector k covers [45k - 22.5, 45k + 22.5): a bearing on a
    border belongs to the sector clockwise of it (22.5 is north-east, 337.5 is north)."""
    index = math.floor((bearing % 360.0 + SECTOR_WIDTH_DEG / 2) / SECTOR_WIDTH_DEG) % len(SECTORS)
    return SECTORS[index]


def border_margin_deg(bearing: float) -> float:
    """How far a bearing lies from the nearest sector border (0 on a border, 22.5 at a centre)."""
    offset = (bearing % 360.0 + SECTOR_WIDTH_DEG / 2) % SECTOR_WIDTH_DEG
    return min(offset, SECTOR_WIDTH_DEG - offset)


def ground_distance(frame: Frame, a: XY, b: XY) -> float:
    """Metres on the ellipsoid with a georeference, else pixels."""
    if frame.georef is None:
        return math.dist(a, b)
    (lon1, lat1), (lon2, lat2) = _lonlat(frame, a, b)
    _, _, metres = _GEOD.inv(lon1, lat1, lon2, lat2)
    return float(metres)


def distance_to_region(frame: Frame, point: XY, region: Polygon) -> float:
    """From a point to the nearest point of a region, 0 inside it. The nearest point is found in
    the image plane and the gap between them measured in the frame's unit."""
    here = Point(point)
    if region.covers(here):
        return 0.0
    _, near = nearest_points(here, region)
    return ground_distance(frame, point, (float(near.x), float(near.y)))


def iou(a: BaseGeometry, b: BaseGeometry) -> float:
    """Intersection over union of two areas (0 when disjoint)."""
    union = a.union(b).area
    return float(a.intersection(b).area / union) if union > 0 else 0.0


def equivalent_radius(region: Polygon) -> float:
    """The radius of a disc of the same area, in pixels: a size for a region of any shape."""
    return math.sqrt(region.area / math.pi)


def rounded(value: Any, digits: int = 2) -> Any:
    """Numbers in provenance rounded so the record reads well and stays the same across runs."""
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, list | tuple):
        return [rounded(v, digits) for v in value]
    return value
