"""North-up orthophotos from nadir drone frames and ground control points (read by gcps.py)."""

from __future__ import annotations

import math
import os
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
import rasterio
from rasterio.enums import ColorInterp
from rasterio.errors import RasterioError
from rasterio.transform import Affine

from ..errors import MediaError
from ..images import MAX_PIXELS, gdal_reason, inspect_image, open_raster
from .fit import apply_matrix
from .gcps import GCP_COLUMNS, read_gcp_csv  # noqa: F401  (their home before gcps.py)
from .georef import GeoReference, georef_from_gcps

# OpenCV's remapping stores destination coordinates in 16-bit integers internally.
CV_MAX_SIDE = 32_767


def orthorectify(
    frame: Path,
    dst: Path,
    *,
    gcps: Sequence[Sequence[float]],
    gsd_m: float | None = None,
    model: Literal["affine", "homography", "auto"] = "auto",
) -> GeoReference:
    """Warp a nadir drone frame onto a north-up grid in the local UTM zone and write it to `dst` (.tif).

    `gcps` are (x, y, lat, lon) in the frame's pixels (corner convention). The fit is a homography with 4 or
    more points ("auto"), which absorbs a slightly tilted camera. The output covers the warped frame's
    bounding box at `gsd_m` metres per pixel (default: the frame's own GSD at its centre); pixels outside
    the frame have alpha 0. Returns the output's georeference, with the control point fit's RMS. `dst`
    appears complete or not at all.
    """
    if dst.suffix.lower() not in (".tif", ".tiff"):
        raise MediaError(f"{dst.name}: an orthophoto is written as a GeoTIFF; name it .tif")
    info = inspect_image(frame)
    if info.dtype != "uint8":
        raise MediaError(f"{frame.name}: orthorectify needs an 8-bit frame, not {info.dtype}")
    fit = georef_from_gcps(gcps, width=info.width, height=info.height, model=model, name=frame.name)
    pixel = float(gsd_m) if gsd_m is not None else fit.gsd_m()
    if not (math.isfinite(pixel) and pixel > 0):
        raise MediaError(f"{frame.name}: the output pixel size must be a positive number of metres, got {gsd_m}")
    transform, width, height = _north_up_grid(frame, np.asarray(fit.matrix), info.width, info.height, pixel)
    rgba = _warp(frame, np.asarray(fit.matrix), transform, width, height)
    _write_geotiff(dst, rgba, fit.crs, transform)
    matrix = ((transform.a, transform.b, transform.c), (transform.d, transform.e, transform.f), (0.0, 0.0, 1.0))
    return GeoReference("geotiff", fit.crs, matrix, width, height, fit.rms_m)


def _north_up_grid(
    frame: Path, to_ground: np.ndarray, width: int, height: int, pixel: float
) -> tuple[Affine, int, int]:
    # A homography maps straight edges to straight edges, so the four corners bound the warped frame.
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], float)
    ground = apply_matrix(to_ground, corners)
    (west, south), (east, north) = ground.min(axis=0), ground.max(axis=0)
    cols, rows = math.ceil((east - west) / pixel), math.ceil((north - south) / pixel)
    if max(cols, rows) > CV_MAX_SIDE or cols * rows > MAX_PIXELS:
        raise MediaError(
            f"{frame.name}: the orthophoto would be {cols}×{rows} px at {pixel:.3g} m/px; "
            "choose a larger gsd_m or check the control points"
        )
    return Affine(pixel, 0.0, west, 0.0, -pixel, north), cols, rows


def _warp(frame: Path, to_ground: np.ndarray, transform: Affine, width: int, height: int) -> np.ndarray:
    try:
        with open_raster(frame) as ds:
            colour = [1, 1, 1] if ds.count < 3 else [1, 2, 3]
            rgb = np.moveaxis(ds.read(colour), 0, -1)
            valid = ds.dataset_mask()
    except RasterioError as exc:
        raise MediaError(f"{frame.name}: the pixels cannot be read ({gdal_reason(exc, frame)})")
    out_to_ground = np.array(
        [[transform.a, transform.b, transform.c], [transform.d, transform.e, transform.f], [0, 0, 1]]
    )
    # OpenCV addresses pixel centres at integer coordinates; this library puts them at +0.5.
    centre = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
    out_to_frame = np.linalg.inv(centre) @ np.linalg.inv(to_ground) @ out_to_ground @ centre
    flags = cv2.WARP_INVERSE_MAP
    warped = cv2.warpPerspective(
        np.ascontiguousarray(rgb), out_to_frame, (width, height), flags=cv2.INTER_LINEAR | flags, borderValue=0
    )
    alpha = cv2.warpPerspective(valid, out_to_frame, (width, height), flags=cv2.INTER_NEAREST | flags, borderValue=0)
    # Bilinear colour bleeds half a pixel past the frame's edge; transparent pixels stay plain black.
    warped[alpha == 0] = 0
    return np.concatenate([np.moveaxis(warped, -1, 0), alpha[None]])


def _write_geotiff(dst: Path, rgba: np.ndarray, crs: str, transform: Affine) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    part = dst.with_name(f".{dst.name}.{uuid.uuid4().hex[:8]}.part")
    profile = {
        "driver": "GTiff",
        "width": rgba.shape[2],
        "height": rgba.shape[1],
        "count": 4,
        "dtype": "uint8",
        "crs": crs,
        "transform": transform,
        "tiled": True,
        "blockxsize": 256,
        "blockysize": 256,
        "compress": "deflate",
        "photometric": "RGB",
        "alpha": "UNASSOCIATED",
    }
    try:
        with rasterio.Env(GDAL_PAM_ENABLED="NO"), rasterio.open(part, "w", **profile) as out:
            # Before the pixels: GDAL can only record the alpha role while the TIFF directory is still open.
            out.colorinterp = [ColorInterp.red, ColorInterp.green, ColorInterp.blue, ColorInterp.alpha]
            out.write(rgba)
        os.replace(part, dst)
    finally:
        part.unlink(missing_ok=True)
