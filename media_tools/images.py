"""Satellite/aerial image header checks with rasterio (GDAL): any band count and data type, no pixel decoding."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import rasterio
from rasterio.enums import ColorInterp, MaskFlags
from rasterio.errors import CRSError, NotGeoreferencedWarning, RasterioIOError

from .errors import MediaError

# Refuse anything larger than this before decoding: a header can claim 60,000 x 60,000 px.
MAX_PIXELS = 400_000_000

# Only these GDAL drivers are ever asked to open an upload. Letting GDAL guess among all its drivers would
# let a ".tif" that is really a VRT (XML naming other files on this machine) be opened and followed.
FORMAT_OF_DRIVER = {"GTiff": "TIFF", "PNG": "PNG", "JPEG": "JPEG"}
DRIVER_OF_SUFFIX = {".tif": "GTiff", ".tiff": "GTiff", ".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG"}


@dataclass(frozen=True)
class ImageInfo:
    width: int
    height: int
    format: str  # "TIFF", "PNG" or "JPEG"
    mode: str  # Pillow-like where one fits ("L", "RGB", "RGBA", "I;16", "P"), else e.g. "4xfloat64"
    bands: int
    dtype: str = "uint8"  # numpy name of the first band's data type
    crs: str | None = None  # "EPSG:32631" when GDAL knows the code, else WKT
    has_geotransform: bool = False
    has_alpha: bool = False
    nodata: float | None = None

    @property
    def driver(self) -> str:
        """The GDAL driver that reads this format, to reopen the file without guessing again."""
        return {fmt: drv for drv, fmt in FORMAT_OF_DRIVER.items()}[self.format]


def inspect_image(path: Path, *, max_pixels: int = MAX_PIXELS) -> ImageInfo:
    """Read the header only (GDAL never decodes pixels here) and check that the image is usable.

    Raises MediaError naming the file for: a missing or empty file, content that is not a TIFF, PNG or
    JPEG, a name whose extension disagrees with the content, a header claiming more than `max_pixels`,
    and a georeference that is present but broken (zero or non-finite pixel size, a CRS GDAL cannot resolve).
    """
    with open_raster(path) as ds:
        if ds.width * ds.height > max_pixels:
            raise MediaError(
                f"{path.name}: the image is too large to open safely "
                f"({ds.width}×{ds.height} px exceeds the {max_pixels:,} pixel limit)"
            )
        crs = _checked_crs(path, ds)
        has_geotransform = _checked_geotransform(path, ds)
        interps = tuple(ds.colorinterp)
        alpha = ColorInterp.alpha in interps or any(MaskFlags.alpha in flags for flags in ds.mask_flag_enums)
        return ImageInfo(
            width=ds.width,
            height=ds.height,
            format=FORMAT_OF_DRIVER[ds.driver],
            mode=_mode(ds.count, ds.dtypes[0], interps),
            bands=ds.count,
            dtype=ds.dtypes[0],
            crs=crs,
            has_geotransform=has_geotransform,
            has_alpha=alpha,
            nodata=None if ds.nodata is None else float(ds.nodata),
        )


@contextmanager
def open_raster(path: Path) -> Iterator[rasterio.DatasetReader]:
    """Open `path` with the TIFF, PNG or JPEG driver only (its extension's driver first).

    Raises MediaError for a missing, empty or unreadable file and for an extension that names another format.
    """
    if not path.is_file():
        raise MediaError(f"{path.name}: file not found")
    if path.stat().st_size == 0:
        raise MediaError(f"{path.name}: the file is empty (0 bytes)")
    expected = DRIVER_OF_SUFFIX.get(path.suffix.lower())
    drivers = [expected] if expected else []
    drivers += [d for d in FORMAT_OF_DRIVER if d != expected]
    last_error = "not a TIFF, PNG or JPEG file"
    for driver in drivers:
        try:
            with warnings.catch_warnings():
                # A plain PNG or JPEG has no georeference; that is normal here, not a warning.
                warnings.simplefilter("ignore", NotGeoreferencedWarning)
                ds = rasterio.open(path, driver=driver)
        except RasterioIOError as exc:
            if "not recognized as being in a supported file format" not in str(exc):
                # The format was recognised but the header is damaged: that is the useful reason.
                last_error = gdal_reason(exc, path)
                break
            continue
        with ds:
            if expected and ds.driver != expected:
                raise MediaError(
                    f"{path.name}: the file is a {FORMAT_OF_DRIVER[ds.driver]} image but its name ends in {path.suffix}"
                )
            yield ds
        return
    raise MediaError(f"{path.name}: not a readable image ({last_error})")


def gdal_reason(exc: BaseException, path: Path) -> str:
    """GDAL's own words for why `path` failed, fit for a person: rasterio's "see previous exception" is
    replaced by that exception, the temporary path by the file name, and GDAL's developer hints dropped."""
    if "See previous exception" in str(exc) and exc.__cause__ is not None:
        exc = exc.__cause__
    text = str(exc).split(" (this error can be turned")[0]
    text = text.replace(str(path), path.name).strip().rstrip(".")
    return text.removeprefix(f"{path.name}: ")


def _checked_crs(path: Path, ds: rasterio.DatasetReader) -> str | None:
    try:
        crs = ds.crs
    except CRSError as exc:
        raise MediaError(f"{path.name}: the CRS in its georeference cannot be read ({gdal_reason(exc, path)})")
    if crs is None:
        return None
    # An unknown EPSG code in the GeoTIFF keys comes back as a LOCAL_CS: neither geographic nor projected,
    # so no transform to lat/lon exists and every position computed from it would be wrong.
    if not (crs.is_geographic or crs.is_projected):
        raise MediaError(
            f"{path.name}: GDAL cannot resolve the CRS in its georeference to a geographic or projected "
            "coordinate system; re-export the image with a valid EPSG code"
        )
    return str(crs.to_string())


def _checked_geotransform(path: Path, ds: rasterio.DatasetReader) -> bool:
    t = ds.transform
    if t.is_identity:
        return False  # GDAL's stand-in for "no geotransform"
    coefficients = (t.a, t.b, t.c, t.d, t.e, t.f)
    if not all(math.isfinite(v) for v in coefficients) or t.determinant == 0:
        where = "GeoTIFF tags" if ds.driver == "GTiff" else "world file"
        raise MediaError(
            f"{path.name}: the geotransform in its {where} is broken (pixel size "
            f"{t.a:g} × {t.e:g}, zero or not a number); re-export the image with a valid georeference"
        )
    return True


def _mode(count: int, dtype: str, interps: tuple[ColorInterp, ...]) -> str:
    """A Pillow-like mode name for the common cases, so existing callers keep their meaning."""
    if count == 1 and interps[0] == ColorInterp.palette:
        return "P"
    if count == 1 and dtype == "uint16":
        return "I;16"
    if dtype == "uint8":
        alpha = ColorInterp.alpha in interps
        base = {1: "L", 3: "RGB"}.get(count - int(alpha))
        if base:
            return base + ("A" if alpha else "")
    return f"{count}x{dtype}"
