"""Pixel <-> WGS84 for an image, from GeoTIFF tags, a world file, corner coordinates or control points.

Pixels follow the corner convention: x right, y down, (0, 0) is the top-left corner of the top-left pixel
and (width, height) the bottom-right corner of the bottom-right one (rasterio's and GDAL's convention).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import affine
import numpy as np
from pyproj import CRS, Geod, Transformer
from pyproj.exceptions import CRSError

from ..errors import MediaError
from .fit import check_in_front, fit_pixels_to_ground

Kind = Literal["geotiff", "world_file", "corners", "gcps"]
KINDS = ("geotiff", "world_file", "corners", "gcps")
CORNER_PIXELS = {"tl": (0.0, 0.0), "tr": (1.0, 0.0), "br": (1.0, 1.0), "bl": (0.0, 1.0)}  # x, y per unit size
_GEOD = Geod(ellps="WGS84")


@dataclass(frozen=True)
class GeoReference:
    """`matrix` maps pixel (x, y, 1) to CRS coordinates (affine or homography); `crs` is any CRS string
    pyproj reads ("EPSG:32631", WKT, PROJ). `rms_m` is the fit's residual at its points, None when exact."""

    kind: Kind
    crs: str
    matrix: tuple[tuple[float, ...], ...]
    width: int
    height: int
    rms_m: float | None = None

    def __post_init__(self) -> None:
        m = np.asarray(self.matrix, dtype=float)
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if m.shape != (3, 3) or not np.all(np.isfinite(m)) or abs(np.linalg.det(m)) < 1e-300:
            raise ValueError("matrix must be a finite, invertible 3x3 pixel -> CRS transform")
        if self.width <= 0 or self.height <= 0:
            raise ValueError(f"image size must be positive, got {self.width}x{self.height}")
        _to_wgs84(self.crs)  # an unknown CRS fails here, not at the first lookup
        # Tuples keep the record hashable and JSON-shaped whatever the caller passed (numpy, lists).
        object.__setattr__(self, "matrix", tuple(tuple(float(v) for v in row) for row in m))
        object.__setattr__(self, "width", int(self.width))
        object.__setattr__(self, "height", int(self.height))

    def pixel_to_lonlat(self, x: Any, y: Any) -> tuple[Any, Any]:
        """(lon, lat) in WGS84 degrees for pixel positions; floats in, floats out; arrays in, arrays out."""
        xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        east, north = _apply(np.asarray(self.matrix), xs, ys)
        lon, lat = _to_wgs84(self.crs).transform(east, north, errcheck=True)
        return _like(x, y, lon), _like(x, y, lat)

    def lonlat_to_pixel(self, lon: Any, lat: Any) -> tuple[Any, Any]:
        """Pixel (x, y) for WGS84 (lon, lat); the inverse of pixel_to_lonlat."""
        east, north = _from_wgs84(self.crs).transform(
            np.asarray(lon, dtype=float), np.asarray(lat, dtype=float), errcheck=True
        )
        px, py = _apply(np.linalg.inv(np.asarray(self.matrix)), np.asarray(east), np.asarray(north))
        return _like(lon, lat, px), _like(lon, lat, py)

    def corners(self) -> dict[str, tuple[float, float]]:
        """{"tl", "tr", "br", "bl"}: (lat, lon) of the image's outer corners."""
        out = {}
        for key, (ux, uy) in CORNER_PIXELS.items():
            lon, lat = self.pixel_to_lonlat(ux * self.width, uy * self.height)
            out[key] = (float(lat), float(lon))
        return out

    def gsd_m(self) -> float:
        """Ground sampling distance at the image centre: geodesic metres per pixel, the geometric mean
        of the x and y steps (so non-square pixels give their area-equivalent size)."""
        cx, cy = self.width / 2, self.height / 2
        lon, lat = self.pixel_to_lonlat(np.array([cx, cx + 1, cx]), np.array([cy, cy, cy + 1]))
        _, _, dist = _GEOD.inv(np.array([lon[0], lon[0]]), np.array([lat[0], lat[0]]), lon[1:], lat[1:])
        return float(math.sqrt(dist[0] * dist[1]))

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "crs": self.crs,
            "matrix": [list(row) for row in self.matrix],
            "width": self.width,
            "height": self.height,
            "rms_m": self.rms_m,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GeoReference:
        """Inverse of to_dict; other keys (a caller's extras) are ignored. Raises ValueError when malformed."""
        try:
            rms = data.get("rms_m")
            return cls(
                kind=data["kind"],
                crs=str(data["crs"]),
                matrix=tuple(tuple(float(v) for v in row) for row in data["matrix"]),
                width=int(data["width"]),
                height=int(data["height"]),
                rms_m=None if rms is None else float(rms),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a georeference record ({exc!r})") from exc


@lru_cache(maxsize=64)
def _to_wgs84(crs: str) -> Transformer:
    try:
        return Transformer.from_crs(CRS.from_user_input(crs), "EPSG:4326", always_xy=True)
    except CRSError as exc:
        raise ValueError(f"unknown CRS {crs!r}") from exc


@lru_cache(maxsize=64)
def _from_wgs84(crs: str) -> Transformer:
    return Transformer.from_crs("EPSG:4326", CRS.from_user_input(crs), always_xy=True)


def _apply(m: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    w = m[2, 0] * x + m[2, 1] * y + m[2, 2]
    return (m[0, 0] * x + m[0, 1] * y + m[0, 2]) / w, (m[1, 0] * x + m[1, 1] * y + m[1, 2]) / w


def _like(a: Any, b: Any, value: Any) -> Any:
    return float(value) if np.ndim(a) == 0 and np.ndim(b) == 0 else np.asarray(value, dtype=float)


def _matrix_of(t: affine.Affine) -> tuple[tuple[float, ...], ...]:
    return ((t.a, t.b, t.c), (t.d, t.e, t.f), (0.0, 0.0, 1.0))


class NoGeoTagsError(MediaError):
    """The file carries no usable GeoTIFF georeference (as opposed to a broken one)."""


def georef_from_geotiff(path: Path) -> GeoReference:
    """From the GeoTIFF's own tags (geotransform + CRS, or embedded control points). Side files are not
    read. Raises NoGeoTagsError (a MediaError) when there are none, MediaError when they are broken."""
    import rasterio  # GDAL loads when a file is read, not when coordinates are converted

    from ..images import inspect_image, open_raster

    # EMPTY_DIR: GDAL would otherwise pick up a .tfw/.aux.xml beside the file and call it "tags".
    with rasterio.Env(GDAL_DISABLE_READDIR_ON_OPEN="EMPTY_DIR"):
        info = inspect_image(path)  # refuses a broken geotransform or CRS with its own message
        if info.format != "TIFF":
            raise NoGeoTagsError(f"{path.name}: a {info.format} image has no GeoTIFF tags")
        with open_raster(path) as ds:
            gcps, gcp_crs = ds.gcps
            transform = ds.transform
    if info.has_geotransform and info.crs:
        return GeoReference("geotiff", info.crs, _matrix_of(transform), info.width, info.height)
    if info.has_geotransform:
        raise NoGeoTagsError(f"{path.name}: its GeoTIFF tags have a geotransform but no CRS")
    if gcps and gcp_crs:
        to_wgs84 = Transformer.from_crs(CRS.from_user_input(gcp_crs.to_wkt()), "EPSG:4326", always_xy=True)
        lon, lat = to_wgs84.transform([g.x for g in gcps], [g.y for g in gcps])
        points = [(g.col, g.row, la, lo) for g, la, lo in zip(gcps, lat, lon, strict=True)]
        return georef_from_gcps(points, width=info.width, height=info.height, name=path.name)
    raise NoGeoTagsError(f"{path.name}: no georeference in its GeoTIFF tags")


def georef_from_world_file(image_path: Path, world_file: Path, *, crs: str) -> GeoReference:
    """From a world file (.tfw/.pgw/.jgw/.wld: six numbers for the CENTRE of the top-left pixel) in `crs`."""
    from ..images import inspect_image  # rasterio, only when a file is read

    info = inspect_image(image_path)
    try:
        text = world_file.read_text(encoding="ascii")
        transform = affine.loadsw(text)  # also shifts the centre-based numbers to the pixel corner
    except (OSError, UnicodeDecodeError, ValueError, TypeError) as exc:
        raise MediaError(
            f"{world_file.name}: not a readable world file ({exc}); it needs six numbers, one per line"
        ) from exc
    coefficients = (transform.a, transform.b, transform.c, transform.d, transform.e, transform.f)
    if not all(math.isfinite(v) for v in coefficients) or transform.determinant == 0:
        raise MediaError(f"{world_file.name}: the world file gives a zero or non-finite pixel size")
    try:
        CRS.from_user_input(crs)
    except CRSError as exc:
        raise MediaError(f"{world_file.name}: the CRS {crs!r} given for the world file is not known") from exc
    return GeoReference("world_file", crs, _matrix_of(transform), info.width, info.height)


def georef_from_corners(
    corners: Mapping[str, Sequence[float]], *, width: int, height: int, name: str = "corners"
) -> GeoReference:
    """From (lat, lon) of 3 or 4 image corners ("tl", "tr", "br", "bl"): a homography through 4 (an
    oblique or slightly tilted view), an affine through 3. Exact, so `rms_m` is None."""
    known = [k for k in CORNER_PIXELS if k in corners]
    unknown = sorted(set(corners) - set(CORNER_PIXELS))
    if unknown or len(known) < 3:
        raise MediaError(f"{name}: give (lat, lon) for at least 3 of tl, tr, br, bl (got {sorted(corners)})")
    points = [
        (CORNER_PIXELS[k][0] * width, CORNER_PIXELS[k][1] * height, *_lat_lon(corners[k], f"{name} {k}")) for k in known
    ]
    fitted = georef_from_gcps(points, width=width, height=height, model="auto", name=name)  # 4 -> homography
    return GeoReference("corners", fitted.crs, fitted.matrix, width, height, None)


def georef_from_gcps(
    gcps: Sequence[Sequence[float]],
    *,
    width: int,
    height: int,
    model: Literal["affine", "homography", "auto"] = "auto",
    name: str = "control points",
) -> GeoReference:
    """From control points (x, y, lat, lon), fitted in the local UTM zone: "auto" is a homography with 4 or
    more points, else affine. Needs 3 points (affine) or 4 (homography), not on one line."""
    pts = [(float(p[0]), float(p[1]), *_lat_lon(p[2:4], f"{name} #{i + 1}")) for i, p in enumerate(gcps)]
    if not pts or not all(math.isfinite(v) for p in pts for v in p[:2]):
        raise MediaError(f"{name}: control points need finite pixel positions (x, y) and lat/lon")
    if model not in ("affine", "homography", "auto"):
        raise ValueError(f"model must be 'affine', 'homography' or 'auto', got {model!r}")
    chosen = model if model != "auto" else ("homography" if len(pts) >= 4 else "affine")
    arr = np.asarray(pts, dtype=float)
    fit = fit_pixels_to_ground(arr[:, :2], arr[:, [3, 2]], model=chosen, name=name)
    check_in_front(fit.matrix, width, height, name)
    return GeoReference("gcps", fit.crs, tuple(map(tuple, fit.matrix)), width, height, fit.rms_m)


def _lat_lon(value: Sequence[float], what: str) -> tuple[float, float]:
    try:
        lat, lon = (float(v) for v in value)
    except (TypeError, ValueError) as exc:
        raise MediaError(f"{what}: expected (lat, lon), got {value!r}") from exc
    if not (-90 <= lat <= 90 and -180 <= lon <= 180):
        raise MediaError(f"{what}: ({lat}, {lon}) is not a WGS84 lat/lon")
    return lat, lon


def georeference(
    path: Path,
    *,
    world_file: Path | None = None,
    world_file_crs: str | None = None,
    corners: Mapping[str, Sequence[float]] | None = None,
    gcps: Sequence[Sequence[float]] | None = None,
    width: int,
    height: int,
) -> GeoReference:
    """The first georeference available, in order: GeoTIFF tags, world file, corners, control points.

    GeoTIFF tags and world files take the image size from the file's header; corners and control points
    use `width` x `height`. Raises MediaError naming the file when none is available or one is broken.
    """
    absent = "no GeoTIFF tags"
    try:
        return georef_from_geotiff(path)
    except NoGeoTagsError as exc:
        if "but no CRS" in str(exc):
            absent = "GeoTIFF tags without a CRS"
    if world_file is not None:
        if not world_file_crs:
            raise MediaError(f"{world_file.name}: a world file needs its CRS (for example EPSG:32631)")
        return georef_from_world_file(path, world_file, crs=world_file_crs)
    if corners:
        return georef_from_corners(corners, width=width, height=height, name=path.name)
    if gcps:
        return georef_from_gcps(gcps, width=width, height=height, name=path.name)
    raise MediaError(f"{path.name} has no georeference: {absent}, world file, corners or control points")
