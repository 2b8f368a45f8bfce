"""Where a drone frame lies on a satellite image: its footprint, a quadrilateral in satellite pixels.

Corners are always in the frame's order TL, TR, BR, BL (the frame's own top-left first), so the quad
also tells which way the frame's "up" points on the satellite image.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ..errors import MediaError

if TYPE_CHECKING:  # PROJ loads with the geodesy below: training and evaluation on arrays need none
    from pyproj import Geod

    from ..geo import GeoReference


@lru_cache(maxsize=1)
def _geod() -> Geod:
    from pyproj import Geod

    return Geod(ellps="WGS84")


def frame_corners(width: float, height: float) -> np.ndarray:
    """(4, 2) outer corners of a width x height frame: TL, TR, BR, BL."""
    return np.array([[0, 0], [width, 0], [width, height], [0, height]], float)


def footprint_from_homography(homography: np.ndarray, width: float, height: float) -> np.ndarray:
    """The frame's corners mapped through a 3x3 frame -> satellite-pixel homography. Raises MediaError
    when a corner lands beyond the horizon (the homography is not a view of the ground)."""
    h = np.asarray(homography, float)
    if h.shape != (3, 3) or not np.all(np.isfinite(h)):
        raise ValueError("homography must be a finite 3x3 matrix")
    corners = np.column_stack([frame_corners(width, height), np.ones(4)]) @ h.T
    if not (np.all(corners[:, 2] > 0) or np.all(corners[:, 2] < 0)):
        raise MediaError("the homography puts part of the frame beyond the horizon; it has no footprint")
    return corners[:, :2] / corners[:, 2:3]


def footprint_from_georefs(frame_ref: GeoReference, sat_ref: GeoReference) -> np.ndarray:
    """Footprint of a georeferenced frame (e.g. from ground control points, media_tools.geo) on a
    georeferenced satellite image: frame pixel -> lon/lat -> satellite pixel, corner by corner."""
    corners = frame_corners(frame_ref.width, frame_ref.height)
    lon, lat = frame_ref.pixel_to_lonlat(corners[:, 0], corners[:, 1])
    x, y = sat_ref.lonlat_to_pixel(lon, lat)
    return np.column_stack([x, y])


@dataclass(frozen=True)
class CameraModel:
    """A pinhole camera, as far as a footprint needs one.

    `hfov_deg`: horizontal field of view of the frames as recorded (after any crop to 16:9);
    `aspect`: frame width / height; `pitch_deg`: -90 looks straight down (nadir), 0 at the horizon;
    `roll_deg` is taken as 0 (a gimbal keeps it level). The ground is a flat plane `alt_m` below.
    """

    hfov_deg: float
    aspect: float
    pitch_deg: float = -90.0

    def __post_init__(self) -> None:
        if not 0 < self.hfov_deg < 180 or self.aspect <= 0:
            raise ValueError(f"need 0 < hfov_deg < 180 and aspect > 0, got {self.hfov_deg}, {self.aspect}")
        if not -90 <= self.pitch_deg < 0:
            raise ValueError(f"pitch_deg must be in [-90, 0) (looking down), got {self.pitch_deg}")


def ground_offsets(camera: CameraModel, heading_deg: float, alt_m: float) -> np.ndarray:
    """(4, 2) east/north metres from the point below the camera to where the frame's corners (TL, TR,
    BR, BL) meet the ground. `heading_deg`: compass direction of the frame's up (clockwise from north)."""
    if not alt_m > 0:
        raise MediaError(f"the camera must be above the ground to have a footprint (altitude {alt_m} m)")
    h, down = math.radians(heading_deg), math.radians(-camera.pitch_deg)
    # East-north-up axes: the view direction, the frame's right, and its up (right x forward).
    forward = np.array([math.cos(down) * math.sin(h), math.cos(down) * math.cos(h), -math.sin(down)])
    right = np.array([math.cos(h), -math.sin(h), 0.0])
    up = np.cross(right, forward)
    tan_x = math.tan(math.radians(camera.hfov_deg) / 2)
    tan_y = tan_x / camera.aspect
    unit = np.array([[-1, 1], [1, 1], [1, -1], [-1, -1]], float)  # TL, TR, BR, BL as (right, up)
    rays = forward + unit[:, :1] * tan_x * right + unit[:, 1:] * tan_y * up
    if np.any(rays[:, 2] >= -1e-9):
        raise MediaError(
            f"at pitch {camera.pitch_deg}° a {camera.hfov_deg}° camera sees the horizon: the footprint is unbounded"
        )
    return rays[:, :2] * (alt_m / -rays[:, 2:3])


def footprint_from_telemetry(
    *, lat: float, lon: float, alt_m: float, heading_deg: float, camera: CameraModel, sat_ref: GeoReference
) -> np.ndarray:
    """Footprint of a frame taken at (lat, lon), `alt_m` above flat ground, its up pointing at
    `heading_deg` (for a gimbal camera, the gimbal yaw), on a georeferenced satellite image.

    Exact for the flat-ground pinhole model; real error comes from the telemetry (GPS a few metres,
    barometric altitude, yaw a degree or two) and terrain."""
    offsets = ground_offsets(camera, heading_deg, alt_m)
    azimuths = np.degrees(np.arctan2(offsets[:, 0], offsets[:, 1]))
    distances = np.hypot(offsets[:, 0], offsets[:, 1])
    # Geodesic steps from the nadir point keep true north, unlike adding metres in a UTM grid.
    lons, lats, _ = _geod().fwd(np.full(4, lon), np.full(4, lat), azimuths, distances)
    x, y = sat_ref.lonlat_to_pixel(np.asarray(lons), np.asarray(lats))
    return np.column_stack([x, y])


def quad_bbox(quad: np.ndarray) -> np.ndarray:
    """[x1, y1, x2, y2] around a quadrilateral."""
    q = np.asarray(quad, float)
    return np.concatenate([q.min(axis=0), q.max(axis=0)])


def quad_area(quad: np.ndarray) -> float:
    """Area of a simple polygon (shoelace), in square pixels."""
    x, y = np.asarray(quad, float).T
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def quad_up_angle(quad: np.ndarray) -> float:
    """Degrees clockwise from the satellite image's up to the frame's up (from its bottom edge's middle to
    its top edge's middle), in [0, 360)."""
    q = np.asarray(quad, float)
    v = (q[0] + q[1]) / 2 - (q[2] + q[3]) / 2
    return math.degrees(math.atan2(v[0], -v[1])) % 360


def points_in_quad(points: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """(n,) bool: which points lie inside a convex quadrilateral (either winding)."""
    p, q = np.atleast_2d(np.asarray(points, float)), np.asarray(quad, float)
    edges = np.roll(q, -1, axis=0) - q
    rel = p[:, None, :] - q[None, :, :]
    cross = edges[None, :, 0] * rel[:, :, 1] - edges[None, :, 1] * rel[:, :, 0]
    return np.all(cross >= 0, axis=1) | np.all(cross <= 0, axis=1)
