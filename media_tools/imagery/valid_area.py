"""Where a satellite image has data: the area outside black or transparent borders (orthophotos,
warped frames, GeoTIFFs with nodata), as a shapely (Multi)Polygon in full-resolution pixels.

Traced on a read of at most MASK_MAX_SIDE cells a side (GDAL takes overviews when the file has
them), so memory and tracing time stay small whatever the image size; the border is as accurate as
one cell of that mask (border_precision_px)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

import numpy as np
import shapely
from shapely.affinity import scale
from shapely.geometry import MultiPolygon, Polygon, box, shape

from ..errors import MediaError

if TYPE_CHECKING:
    import rasterio

# rasterio (GDAL) is imported by the functions that read a file: the area arithmetic below is what
# a web request uses (annotator/compiling/area.py), and it should not load GDAL.

# The mask is read at most this many cells along the image's longer side: enough to follow a
# warped frame's edge within a fraction of a percent, small enough to trace in milliseconds.
MASK_MAX_SIDE = 512
# 8-bit pixels this dark in every colour band count as no-data. Exact zero would miss JPEG noise
# along a masked border (a black fill decodes to a few DN); real daylight imagery is seldom this dark
# in all three bands at once, and the few such pixels are small holes that are filled below.
BLACK_MAX_DN = 8
# Parts of the area, and holes in it, smaller than this share of the image are dropped (parts)
# or filled (holes): dark car windows, shadows and JPEG specks are not no-data borders.
MIN_PART_SHARE = 0.002
# The outline is simplified by this many mask cells (it is only that accurate anyway) and more,
# doubling, until it has at most MAX_VERTICES vertices, so it stores in a few kilobytes.
SIMPLIFY_CELLS = 0.5
MAX_VERTICES = 300

Area: TypeAlias = Polygon | MultiPolygon


def mask_shape(width: int, height: int, *, max_side: int = MASK_MAX_SIDE) -> tuple[int, int]:
    """(rows, columns) of the downsampled mask of a width x height image."""
    factor = max(1.0, max(width, height) / max_side)
    return max(1, round(height / factor)), max(1, round(width / factor))


def border_precision_px(width: int, height: int, *, max_side: int = MASK_MAX_SIDE) -> float:
    """How far, in full-resolution pixels, the traced border may be from the true one: one mask cell."""
    rows, cols = mask_shape(width, height, max_side=max_side)
    return max(width / cols, height / rows)


def _declares_mask(ds: rasterio.DatasetReader) -> bool:
    """True when the file says which pixels are not data: an alpha band, a nodata value or a mask."""
    from rasterio.enums import MaskFlags

    flags = {f for band in ds.mask_flag_enums for f in band}
    return ds.nodata is not None or bool(flags & {MaskFlags.alpha, MaskFlags.per_dataset, MaskFlags.nodata})


def valid_mask(ds: rasterio.DatasetReader, out_shape: tuple[int, int]) -> np.ndarray:
    """True where the image has data, read at `out_shape` (nearest neighbour: true values, never
    averages that would smear a border). The file's own mask (alpha, nodata, internal mask) first;
    then pixels blank in every colour band are taken out too, since a frame masked black before it
    was warped carries full alpha over its black: for 8-bit data "blank" is BLACK_MAX_DN or darker,
    for deeper data exactly zero where the file declares no mask (the fill warping tools write;
    sensor noise keeps real dark pixels above it), and not a number for floats."""
    from rasterio.enums import ColorInterp, Resampling

    valid = ds.dataset_mask(out_shape=out_shape, resampling=Resampling.nearest) > 0
    interps = list(ds.colorinterp)
    if interps and interps[0] == ColorInterp.palette:
        return valid  # palette indices say nothing about darkness without the palette
    colour = [i + 1 for i, c in enumerate(interps) if c != ColorInterp.alpha] or [1]
    data = ds.read(colour, out_shape=(len(colour), *out_shape), resampling=Resampling.nearest)
    if data.dtype == np.uint8:
        return valid & (data.max(axis=0) > BLACK_MAX_DN)
    values = data.astype(np.float64)
    valid &= np.all(np.isfinite(values), axis=0)
    if not _declares_mask(ds):
        valid &= np.any(np.nan_to_num(values) != 0, axis=0)
    return valid


def _polygonal(geom: shapely.Geometry) -> Area:
    """The polygons of `geom` (an intersection may add stray lines or points along an edge)."""
    if isinstance(geom, Polygon | MultiPolygon):
        return geom
    parts = [g for g in getattr(geom, "geoms", []) if isinstance(g, Polygon | MultiPolygon)]
    merged = shapely.union_all(parts) if parts else MultiPolygon()
    return merged if isinstance(merged, Polygon | MultiPolygon) else MultiPolygon()


def _cleaned(area: Area, min_area: float) -> Area:
    """Drop parts under `min_area` and fill holes under it."""
    parts = []
    for part in getattr(area, "geoms", [area]):
        holes = [ring for ring in part.interiors if Polygon(ring).area >= min_area]
        if part.area >= min_area:
            parts.append(Polygon(part.exterior, holes))
    return _polygonal(shapely.union_all(parts)) if parts else MultiPolygon()


def _simplified(area: Area, tolerance: float, limit: float) -> Area:
    """`area` simplified by `tolerance`, doubled until it has at most MAX_VERTICES vertices (or the
    tolerance reaches `limit`: a scatter of many parts cannot get fewer than four vertices each)."""
    simple = area.simplify(tolerance, preserve_topology=True)
    while shapely.get_num_coordinates(simple) > MAX_VERTICES and tolerance < limit:
        tolerance *= 2
        simple = area.simplify(tolerance, preserve_topology=True)
    return _polygonal(simple)


def mask_outline(mask: np.ndarray, width: int, height: int) -> Area:
    """The True cells of `mask` (covering a width x height image) as a cleaned, simplified area in
    the image's pixels, inside box(0, 0, width, height)."""
    import rasterio.features

    frame = box(0, 0, width, height)
    if mask.all():
        return frame
    rows, cols = mask.shape
    cells = [shape(geom) for geom, _ in rasterio.features.shapes(mask.astype(np.uint8), mask=mask, connectivity=4)]
    if not cells:
        return MultiPolygon()
    traced = scale(shapely.union_all(cells), xfact=width / cols, yfact=height / rows, origin=(0, 0))
    area = _cleaned(_polygonal(traced.intersection(frame)), MIN_PART_SHARE * width * height)
    if area.is_empty or area.covers(frame):
        return area if area.is_empty else frame
    # Simplifying keeps a subset of the vertices, so the outline stays inside the (convex) frame.
    cell = max(width / cols, height / rows)
    return _simplified(area, SIMPLIFY_CELLS * cell, max(width, height))


def valid_area(path: Path, *, max_side: int = MASK_MAX_SIDE) -> Area:
    """The part of the image at `path` that has data, in its full-resolution pixels (x right, y down):
    box(0, 0, width, height) when every pixel does, an empty MultiPolygon when none does. Raises
    MediaError naming the file when it cannot be read."""
    from rasterio.errors import RasterioError

    from ..images import gdal_reason, open_raster

    with open_raster(path) as ds:
        try:
            mask = valid_mask(ds, mask_shape(ds.width, ds.height, max_side=max_side))
        except RasterioError as exc:
            raise MediaError(f"{path.name}: its pixels cannot be read ({gdal_reason(exc, path)})") from exc
        return mask_outline(mask, ds.width, ds.height)


def area_share(area: Area, width: int, height: int) -> float:
    """The share of the width x height image that `area` covers, 0..1."""
    return 0.0 if area.is_empty else min(1.0, area.area / (width * height))


__all__ = ["Area", "area_share", "border_precision_px", "mask_outline", "mask_shape", "valid_area", "valid_mask"]
