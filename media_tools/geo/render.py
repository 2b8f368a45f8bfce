"""An 8-bit RGB(A) display copy of any satellite image, stretched per band, written window by window."""

from __future__ import annotations

import math
import os
import uuid
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import rasterio
import rasterio.shutil
from rasterio.enums import ColorInterp, MaskFlags, Resampling
from rasterio.errors import NotGeoreferencedWarning, RasterioError
from rasterio.windows import Window

from ..errors import MediaError
from ..images import gdal_reason, inspect_image, open_raster

# The stretch is estimated on a decimated read of about this many pixels: enough for stable 2/98 %
# percentiles, small enough to hold in memory whatever the image size.
STATS_PIXELS = 1_000_000
# Pixels are read and written in squares of this side, so memory stays bounded on huge scenes.
WINDOW = 1024
# JPEG cannot store sides over 65,500 px; a larger rendering must go to .tif.
JPEG_MAX_SIDE = 65_500
OUTPUT_DRIVERS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".tif": "GTiff", ".tiff": "GTiff"}


@dataclass(frozen=True)
class RenderInfo:
    width: int
    height: int
    bands_used: tuple[int, int, int]  # 1-based source bands shown as red, green, blue
    stretch: tuple[tuple[float, float], ...]  # (low, high) source values per bands_used entry
    alpha: bool = False


def render_display(
    src: Path,
    dst: Path,
    *,
    bands: Sequence[int] | None = None,
    low_pct: float = 2,
    high_pct: float = 98,
    on_progress: Callable[[int], None] | None = None,
    stretch_8bit: bool = False,
) -> RenderInfo:
    """Write an 8-bit RGB (RGBA when `src` has alpha or nodata) display copy of `src` to `dst`.

    The format follows `dst`'s suffix: .png, .jpg/.jpeg (never alpha) or .tif/.tiff (tiled, georeferenced,
    for renderings too big for a browser image). Each band is stretched linearly from its `low_pct` to its
    `high_pct` percentile, computed on a decimated read. `bands` picks three source bands (1-based) for red,
    green, blue, or one band shown as grey; by default colour interpretation decides, and a 4-band image
    without one is taken as Blue, Green, Red, NIR (SpaceNet's order). 8-bit sources are already display
    values and keep them (stretch 0..255) unless `stretch_8bit`: a per-band stretch would shift the colour
    balance of photos and orthophotos. `on_progress` gets 0..100, never decreasing, ending with 100.
    `src` is only read; `dst` appears complete or not at all.
    """
    driver = _output_driver(src, dst)
    if not 0 <= low_pct < high_pct <= 100:
        raise ValueError(f"need 0 <= low_pct < high_pct <= 100, got {low_pct} and {high_pct}")
    inspect_image(src)
    if on_progress is not None:
        on_progress(0)
    dst.parent.mkdir(parents=True, exist_ok=True)
    token = uuid.uuid4().hex[:8]
    work = dst.with_name(f".{dst.name}.{token}.render.tif")
    part = dst.with_name(f".{dst.name}.{token}.part")
    try:
        # No .aux.xml side files next to the output: a display copy is exactly one file. A PNG/JPEG copy
        # carries no georeference, which rasterio would otherwise warn about on every write.
        with rasterio.Env(GDAL_PAM_ENABLED="NO"), warnings.catch_warnings(), open_raster(src) as ds:
            warnings.simplefilter("ignore", NotGeoreferencedWarning)
            pcts = (low_pct, high_pct) if stretch_8bit or ds.dtypes[0] != "uint8" else None
            info = _render(ds, src, work, driver, bands, pcts, on_progress)
        if driver == "GTiff":
            os.replace(work, dst)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", NotGeoreferencedWarning)
                _copy_as(work, part, driver, src)
            os.replace(part, dst)
    finally:
        for leftover in (work, part):
            leftover.unlink(missing_ok=True)
    if on_progress is not None:
        on_progress(100)
    return info


def _output_driver(src: Path, dst: Path) -> str:
    driver = OUTPUT_DRIVERS.get(dst.suffix.lower())
    if driver is None:
        raise MediaError(f"{dst.name}: a display copy must end in .png, .jpg or .tif")
    if dst.exists() and src.exists() and dst.resolve() == src.resolve():
        raise MediaError(f"{src.name}: the display copy must not overwrite the original")
    return driver


def _render(
    ds: rasterio.DatasetReader,
    src: Path,
    work: Path,
    driver: str,
    bands: Sequence[int] | None,
    pcts: tuple[float, float] | None,
    on_progress: Callable[[int], None] | None,
) -> RenderInfo:
    used = _choose_bands(ds, src, bands)
    palette = _palette_lut(ds) if bands is None and ds.colorinterp[0] == ColorInterp.palette else None
    alpha = driver != "JPEG" and _has_mask(ds)
    if driver == "JPEG" and max(ds.width, ds.height) > JPEG_MAX_SIDE:
        raise MediaError(f"{src.name}: {ds.width}×{ds.height} px is too large for a JPEG display copy; use .tif")
    try:
        stretch = [(0.0, 255.0)] * 3 if palette is not None or pcts is None else _stretch(ds, used, pcts)
        profile = _work_profile(ds, alpha, keep_georef=driver == "GTiff")
        with rasterio.open(work, "w", **profile) as out:
            out.colorinterp = [ColorInterp.red, ColorInterp.green, ColorInterp.blue] + (
                [ColorInterp.alpha] if alpha else []
            )
            windows = list(_windows(ds.width, ds.height))
            for done, window in enumerate(windows, start=1):
                rgba = _render_window(ds, window, used, stretch, palette, alpha)
                out.write(rgba, window=window)
                if on_progress is not None:
                    on_progress(min(99, done * 100 // len(windows)))
    except RasterioError as exc:
        raise MediaError(f"{src.name}: the pixels cannot be read ({gdal_reason(exc, src)})")
    return RenderInfo(ds.width, ds.height, used, tuple((float(lo), float(hi)) for lo, hi in stretch), alpha)


def _choose_bands(ds: rasterio.DatasetReader, src: Path, bands: Sequence[int] | None) -> tuple[int, int, int]:
    if bands is not None:
        chosen = tuple(int(b) for b in bands)
        if len(chosen) not in (1, 3) or not all(1 <= b <= ds.count for b in chosen):
            raise MediaError(
                f"{src.name}: bands {list(chosen)} cannot be shown; give 1 or 3 band numbers from 1 to {ds.count}"
            )
        return (chosen[0],) * 3 if len(chosen) == 1 else (chosen[0], chosen[1], chosen[2])
    interps = list(ds.colorinterp)
    if all(c in interps for c in (ColorInterp.red, ColorInterp.green, ColorInterp.blue)):
        return (
            interps.index(ColorInterp.red) + 1,
            interps.index(ColorInterp.green) + 1,
            interps.index(ColorInterp.blue) + 1,
        )
    colour = [i + 1 for i, c in enumerate(interps) if c != ColorInterp.alpha]
    if len(colour) == 4:
        return (3, 2, 1)  # no colour interpretation: SpaceNet's Blue, Green, Red, NIR order
    if len(colour) >= 3:
        return (colour[0], colour[1], colour[2])
    return (colour[0],) * 3


def _has_mask(ds: rasterio.DatasetReader) -> bool:
    """True when some pixels are not data: an alpha band, a nodata value or a per-dataset mask."""
    flags = {f for band in ds.mask_flag_enums for f in band}
    return ds.nodata is not None or bool(flags & {MaskFlags.alpha, MaskFlags.per_dataset, MaskFlags.nodata})


def _palette_lut(ds: rasterio.DatasetReader) -> np.ndarray:
    lut = np.zeros((256, 3), np.uint8)
    for index, rgba in ds.colormap(1).items():
        if 0 <= index < 256:
            lut[index] = rgba[:3]
    return lut


def _stretch(
    ds: rasterio.DatasetReader, used: tuple[int, int, int], pcts: tuple[float, float]
) -> list[tuple[float, float]]:
    """Per-band (low, high) percentiles on a nearest-neighbour decimated read (true values, not averages)."""
    factor = max(1.0, math.sqrt(ds.width * ds.height / STATS_PIXELS))
    shape = (max(1, round(ds.height / factor)), max(1, round(ds.width / factor)))
    valid = ds.dataset_mask(out_shape=shape, resampling=Resampling.nearest) > 0
    result = []
    for band in used:
        values = ds.read(band, out_shape=shape, resampling=Resampling.nearest).astype(np.float64)
        values = values[valid & np.isfinite(values)]
        if values.size == 0:
            result.append((0.0, 1.0))
            continue
        low, high = np.percentile(values, pcts)
        result.append((float(low), float(high)))
    return result


def _work_profile(ds: rasterio.DatasetReader, alpha: bool, *, keep_georef: bool) -> dict:
    profile = {
        "driver": "GTiff",
        "width": ds.width,
        "height": ds.height,
        "count": 4 if alpha else 3,
        "dtype": "uint8",
        "tiled": True,
        "blockxsize": 256,
        "blockysize": 256,
        "compress": "deflate",
        "photometric": "RGB",
        "BIGTIFF": "IF_SAFER",
    }
    if alpha:
        profile["alpha"] = "UNASSOCIATED"
    if keep_georef and not ds.transform.is_identity:
        profile.update(crs=ds.crs, transform=ds.transform)
    return profile


def _windows(width: int, height: int) -> Iterator[Window]:
    for row in range(0, height, WINDOW):
        for col in range(0, width, WINDOW):
            yield Window(col, row, min(WINDOW, width - col), min(WINDOW, height - row))


def _render_window(
    ds: rasterio.DatasetReader,
    window: Window,
    used: tuple[int, int, int],
    stretch: Sequence[tuple[float, float]],
    palette: np.ndarray | None,
    alpha: bool,
) -> np.ndarray:
    if palette is not None:
        rgb = np.moveaxis(palette[ds.read(1, window=window)], -1, 0)
        finite = np.ones(rgb.shape[1:], bool)
    else:
        unique = sorted(set(used))
        data = dict(zip(unique, ds.read(unique, window=window).astype(np.float64), strict=True))
        finite = np.all([np.isfinite(data[b]) for b in unique], axis=0)
        rgb = np.empty((3, *finite.shape), np.uint8)
        for i, (band, (low, high)) in enumerate(zip(used, stretch, strict=True)):
            scaled = (np.nan_to_num(data[band], nan=low) - low) * (255.0 / max(high - low, 1e-12))
            rgb[i] = np.clip(np.rint(scaled), 0, 255).astype(np.uint8)
    if not alpha:
        return rgb
    mask = (ds.dataset_mask(window=window) > 0) & finite
    return np.concatenate([rgb, (mask * 255).astype(np.uint8)[None]])


def _copy_as(work: Path, part: Path, driver: str, src: Path) -> None:
    """Convert the tiled working TIFF to PNG/JPEG; GDAL streams it line by line."""
    options = {"QUALITY": 90} if driver == "JPEG" else {"ZLEVEL": 6}
    try:
        with rasterio.Env(GDAL_PAM_ENABLED="NO"):
            rasterio.shutil.copy(work, part, driver=driver, **options)
    except RasterioError as exc:
        raise MediaError(f"{src.name}: the display copy cannot be written ({gdal_reason(exc, part)})")
