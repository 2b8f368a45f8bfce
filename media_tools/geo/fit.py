"""Fits from image pixels to a local metric CRS: affine (least squares) or homography (OpenCV), with RMS."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from pyproj import Transformer
from pyproj.aoi import AreaOfInterest
from pyproj.database import query_utm_crs_info

from ..errors import MediaError

# Points whose spread across their second axis is under this share of the first lie (nearly) on one line:
# a fit through them is unconstrained across the line and would place the rest of the image anywhere.
COLLINEAR_RATIO = 1e-3
MIN_POINTS = {"affine": 3, "homography": 4}


@dataclass(frozen=True)
class Fit:
    crs: str  # the local metric CRS the matrix maps into
    matrix: np.ndarray  # 3x3, pixel (corner convention) -> CRS metres
    rms_m: float  # root mean square of the residuals at the points, in metres
    residuals_m: np.ndarray  # one per point


def local_metric_crs(lon: float, lat: float) -> str:
    """The WGS 84 UTM zone around (lon, lat), or a transverse Mercator centred there near the poles."""
    return _utm_near(round(lon, 2), round(lat, 2))


@lru_cache(maxsize=256)
def _utm_near(lon: float, lat: float) -> str:
    zones = query_utm_crs_info(datum_name="WGS 84", area_of_interest=AreaOfInterest(lon, lat, lon, lat))
    if not zones:
        # UTM stops at 84 N / 80 S; a local transverse Mercator keeps metres honest there.
        return f"+proj=tmerc +lat_0={lat} +lon_0={lon} +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs"

    def distance_to_centre(zone: object) -> float:
        area = zone.area_of_use  # type: ignore[attr-defined]
        return abs(lon - (area.west + area.east) / 2) if area else 0.0

    # A point on a zone boundary belongs to two zones; the one whose centre is nearer distorts less.
    best = min(zones, key=distance_to_centre)
    return f"{best.auth_name}:{best.code}"


def fit_pixels_to_ground(pixels: np.ndarray, lonlat: np.ndarray, *, model: str, name: str) -> Fit:
    """Fit pixel (n, 2) -> local metres from lon/lat (n, 2). `name` starts every error message."""
    if model not in MIN_POINTS:
        raise ValueError(f"model must be 'affine' or 'homography', got {model!r}")
    count = len(pixels)
    if count < MIN_POINTS[model]:
        raise MediaError(
            f"{name}: a {model} fit needs at least {MIN_POINTS[model]} control points, got {count}; "
            "add points spread across the image"
        )
    crs = local_metric_crs(float(np.mean(lonlat[:, 0])), float(np.mean(lonlat[:, 1])))
    to_local = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
    ground = np.column_stack(to_local.transform(lonlat[:, 0], lonlat[:, 1]))
    for points, what in ((pixels, "pixel positions"), (ground, "ground positions")):
        if _collinear(points):
            raise MediaError(
                f"{name}: the control points' {what} lie on one line, so they cannot fix the image; "
                "add points off that line"
            )
    # Fitting around the centroid keeps the numbers small (UTM northings are ~6e6 m).
    origin = ground.mean(axis=0)
    local = (
        _fit_affine(pixels, ground - origin) if model == "affine" else _fit_homography(pixels, ground - origin, name)
    )
    matrix = np.array([[1, 0, origin[0]], [0, 1, origin[1]], [0, 0, 1]], float) @ local
    matrix /= matrix[2, 2]
    residuals = np.hypot(*(apply_matrix(matrix, pixels) - ground).T)
    return Fit(crs, matrix, float(np.sqrt(np.mean(residuals**2))), residuals)


def apply_matrix(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Map (n, 2) points through a 3x3 affine or homography."""
    homogeneous = np.column_stack([points, np.ones(len(points))]) @ matrix.T
    return homogeneous[:, :2] / homogeneous[:, 2:3]


def check_in_front(matrix: np.ndarray, width: int, height: int, name: str) -> None:
    """Refuse a homography that sends part of the image past the horizon (a sign of bad points)."""
    corners = np.array([[0, 0, 1], [width, 0, 1], [width, height, 1], [0, height, 1]], float)
    w = corners @ matrix[2]
    if not (np.all(w > 0) or np.all(w < 0)):
        raise MediaError(
            f"{name}: the control points put part of the image beyond the horizon; check their pixel positions"
        )


def _collinear(points: np.ndarray) -> bool:
    spread = np.linalg.svd(points - points.mean(axis=0), compute_uv=False)
    return bool(spread[0] == 0 or spread[1] < COLLINEAR_RATIO * spread[0])


def _fit_affine(pixels: np.ndarray, ground: np.ndarray) -> np.ndarray:
    design = np.column_stack([pixels, np.ones(len(pixels))])
    coef, *_ = np.linalg.lstsq(design, ground, rcond=None)
    return np.vstack([coef.T, [0.0, 0.0, 1.0]])


def _fit_homography(pixels: np.ndarray, ground: np.ndarray, name: str) -> np.ndarray:
    # method=0: all points, least squares (DLT, then Levenberg-Marquardt on the ground residuals);
    # RANSAC would silently drop surveyed points, and with a handful of them each one matters.
    import cv2  # only a homography fit needs OpenCV

    matrix, _ = cv2.findHomography(pixels.astype(np.float64), ground.astype(np.float64), method=0)
    if matrix is None or not np.all(np.isfinite(matrix)):
        raise MediaError(f"{name}: no homography fits the control points; check for duplicated or mixed-up points")
    return np.asarray(matrix, float)
