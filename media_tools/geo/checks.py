"""Checks and browser helpers on top of a georeference (media_tools.geo.GeoReference)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image
from pyproj import Geod

from ..errors import MediaError
from .georef import GeoReference, georef_from_gcps

_GEOD = Geod(ellps="WGS84")


def check_rms_m(ref: GeoReference, gcps: Sequence[Sequence[float]]) -> float:
    """RMS distance in metres between where `ref` puts each control point's pixel and its surveyed
    lat/lon. Points that did not build the georeference make it an independent check."""
    if not gcps:
        raise MediaError("no control points to check the georeference against")
    pts = np.asarray(gcps, dtype=float)
    lon, lat = ref.pixel_to_lonlat(pts[:, 0], pts[:, 1])
    _, _, dist = _GEOD.inv(np.asarray(lon), np.asarray(lat), pts[:, 3], pts[:, 2])
    return float(np.sqrt(np.mean(np.square(dist))))


def browser_lonlat_fit(ref: GeoReference, *, grid: int = 9) -> dict[str, Any]:
    """A 3x3 homography pixel -> (lon, lat) fitted on a grid over the image, so a page can show the
    pointer's lat/lon without a projection library; `max_error_m` says how close it stays to the
    exact transform, and `m_per_px` gives a scale bar."""
    xs, ys = np.meshgrid(np.linspace(0, ref.width, grid), np.linspace(0, ref.height, grid))
    px = np.column_stack([xs.ravel(), ys.ravel()])
    lon, lat = ref.pixel_to_lonlat(px[:, 0], px[:, 1])
    ll = np.column_stack([np.asarray(lon, dtype=float), np.asarray(lat, dtype=float)])
    # Centre the coordinates so the fit is well conditioned (degrees differ little across an image).
    origin = ll.mean(axis=0)
    import cv2  # OpenCV stays out of web processes until a page needs this fit

    h, _ = cv2.findHomography(px, ll - origin, method=0)
    if h is None:
        raise MediaError("the georeference is degenerate (all pixels map to one place)")
    fitted = cv2.perspectiveTransform(px.reshape(-1, 1, 2), h).reshape(-1, 2) + origin
    _, _, err = _GEOD.inv(fitted[:, 0], fitted[:, 1], ll[:, 0], ll[:, 1])
    # Ground distance across the image's middle row, for the scale bar.
    mid = ref.height / 2
    lon_a, lat_a = ref.pixel_to_lonlat(np.array([0.0]), np.array([mid]))
    lon_b, lat_b = ref.pixel_to_lonlat(np.array([float(ref.width)]), np.array([mid]))
    _, _, across = _GEOD.inv(lon_a, lat_a, lon_b, lat_b)
    return {
        "origin": [float(origin[0]), float(origin[1])],
        "pixel_to_lonlat": h.tolist(),
        "max_error_m": float(np.max(err)),
        "m_per_px": float(np.asarray(across).ravel()[0]) / ref.width,
    }


def orthophoto_from_frame(
    frame: Path, dst: Path, *, gcps: Sequence[Sequence[float]]
) -> tuple[GeoReference, list[list[float]]]:
    """Warp a nadir video frame north-up with control points (x, y, lat, lon in the frame's pixels).

    Returns the orthophoto's GeoReference (its rms_m is the control-point fit's) and the control
    points moved into the orthophoto's pixels through the same fit, so that checking them against
    the orthophoto's GeoTIFF tags later reports that fit RMS again rather than zero."""

    from .ortho import orthorectify  # OpenCV and GDAL: a worker's job, not a request's

    points = [tuple(float(v) for v in g) for g in gcps]
    ortho = orthorectify(frame, dst, gcps=points)
    with Image.open(frame) as img:
        width, height = img.size
    fit = georef_from_gcps(points, width=width, height=height)
    pts = np.asarray(points)
    lon, lat = fit.pixel_to_lonlat(pts[:, 0], pts[:, 1])
    ox, oy = ortho.lonlat_to_pixel(np.asarray(lon), np.asarray(lat))
    moved = [
        [float(x), float(y), float(p[2]), float(p[3])]
        for x, y, p in zip(np.atleast_1d(ox), np.atleast_1d(oy), points, strict=True)
    ]
    return ortho, moved
