"""Pixels for the model: load any image as 8-bit RGB, and sample square views from it at any scale and turn.

Views are sampled from a pyramid (each level half the previous one), so a large window shrunk to the
model's input is averaged rather than aliased, and each sample costs only its output pixels.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ..errors import MediaError
from .windows import view_affine


def as_rgb8(image: np.ndarray) -> np.ndarray:
    """(H, W, 3) uint8 from a grey, RGB or RGBA array of any numeric type. 8-bit data keeps its values;
    other types are stretched from their 2nd to 98th percentile (as the display rendering does)."""
    arr = np.asarray(image)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if arr.ndim != 3 or arr.shape[2] not in (1, 3, 4) or min(arr.shape[:2]) < 1:
        raise ValueError(f"expected an (H, W), (H, W, 1|3|4) image, got shape {arr.shape}")
    alpha = arr[:, :, 3] if arr.shape[2] == 4 else None
    rgb = arr[:, :, :3] if arr.shape[2] >= 3 else np.repeat(arr, 3, axis=2)
    if rgb.dtype != np.uint8:
        finite = rgb[np.isfinite(rgb)] if np.issubdtype(rgb.dtype, np.floating) else rgb
        low, high = np.percentile(finite, [2, 98]) if finite.size else (0.0, 1.0)
        scaled = (np.nan_to_num(rgb.astype(np.float64)) - low) / max(high - low, 1e-12) * 255
        rgb = np.clip(scaled, 0, 255).astype(np.uint8)
    if alpha is not None:
        rgb = np.where((alpha > 0)[:, :, None], rgb, 0).astype(np.uint8)
    return np.ascontiguousarray(rgb)


def load_rgb(path: Path) -> np.ndarray:
    """An image file (TIFF/GeoTIFF, PNG, JPEG) as (H, W, 3) uint8 RGB; transparent pixels are black.
    A 4-band image without colour interpretation is read as Blue, Green, Red, NIR (SpaceNet's order).
    Raises MediaError naming the file when it cannot be read."""
    # GDAL loads when a file is read: training and evaluation on arrays (a GPU machine) need no GDAL.
    from rasterio.errors import RasterioError

    from ..images import gdal_reason, open_raster

    try:
        with open_raster(path) as ds:
            interps = tuple(ds.colorinterp)
            bands = _rgb_bands(ds.count, interps)
            data = np.moveaxis(ds.read(bands), 0, -1)
            mask = ds.dataset_mask() if ds.count in (2, 4) or ds.nodata is not None else None
    except RasterioError as exc:
        raise MediaError(f"{path.name}: the pixels cannot be read ({gdal_reason(exc, path)})")
    rgb = as_rgb8(data)
    if mask is not None:
        rgb[mask == 0] = 0
    return rgb


def _rgb_bands(count: int, interps: tuple[Any, ...]) -> list[int]:
    from rasterio.enums import ColorInterp

    rgb = (ColorInterp.red, ColorInterp.green, ColorInterp.blue)
    if count < 3:
        return [1]
    if all(c in interps for c in rgb):
        return [interps.index(c) + 1 for c in rgb]
    return [3, 2, 1] if count == 4 else [1, 2, 3]


def image_sha256(image: np.ndarray) -> str:
    """Digest of an image's pixels, shape and type: the satellite half of the window cache's key."""
    arr = np.ascontiguousarray(image)
    digest = hashlib.sha256(f"{arr.shape}|{arr.dtype}".encode())
    digest.update(arr.reshape(-1).view(np.uint8).data)
    return digest.hexdigest()


class Pyramid:
    """An RGB image and its successive halvings (cv2.pyrDown), for sampling views of any size."""

    def __init__(self, image: np.ndarray, min_side: int = 8) -> None:
        self.levels = [as_rgb8(image)]
        while min(self.levels[-1].shape[:2]) >= 2 * min_side:
            self.levels.append(cv2.pyrDown(self.levels[-1]))
        self.height, self.width = self.levels[0].shape[:2]

    def level_for(self, shrink: float) -> int:
        """The coarsest level that still has at least one pixel per output pixel."""
        wanted = math.floor(math.log2(max(shrink, 1.0))) if shrink > 1 else 0
        return min(wanted, len(self.levels) - 1)

    def sample_view(self, cx: float, cy: float, side: float, angle: float, out: int) -> np.ndarray:
        """A square view of `side` px centred at (cx, cy), turned by `angle` degrees clockwise, resampled to
        out x out; ground outside the image is black."""
        level = self.level_for(side / out)
        f = 2.0**level
        matrix = view_affine(cx / f, cy / f, side / f, angle, out)
        return _warp_affine(self.levels[level], matrix, out)

    def sample_quad(self, quad: np.ndarray, out: int) -> np.ndarray:
        """The ground inside `quad` (TL, TR, BR, BL in image pixels) stretched onto an out x out view, as a
        camera that sees that quadrilateral would show it (a perspective warp)."""
        quad = np.asarray(quad, float)
        edge = max(float(np.linalg.norm(quad[1] - quad[0])), float(np.linalg.norm(quad[2] - quad[3])))
        level = self.level_for(edge / out)
        f = 2.0**level
        dst = np.array([[0, 0], [out, 0], [out, out], [0, out]], float)
        # Both sides in corner convention; shifting by half a pixel on each side keeps OpenCV's centres.
        matrix = cv2.getPerspectiveTransform((dst - 0.5).astype(np.float32), (quad / f - 0.5).astype(np.float32))
        return cv2.warpPerspective(
            self.levels[level], matrix, (out, out), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=0
        )


def _warp_affine(image: np.ndarray, matrix: np.ndarray, out: int) -> np.ndarray:
    return cv2.warpAffine(
        image, matrix, (out, out), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_CONSTANT
    )


def prepare_frame(frame: np.ndarray, out: int) -> np.ndarray:
    """A drone frame squeezed to out x out RGB uint8 (the whole frame, aspect not kept: training sees
    frames the same way)."""
    rgb = as_rgb8(frame)
    return cv2.resize(rgb, (out, out), interpolation=cv2.INTER_AREA)
