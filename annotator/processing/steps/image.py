"""Job steps that work on a satellite image: display rendering, georeference, tile pyramid, valid-data area."""

from __future__ import annotations

import contextlib
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.db import transaction
from shapely.geometry import shape

import media_tools
from annotator.models import MediaJob, SatelliteImage
from annotator.processing.jobs import ProgressFn
from annotator.processing.valid_area import satellite_image_valid_area_update
from annotator.storage import (
    delete_quietly,
    delete_tree_quietly,
    file_fields_replace,
    local_copy,
    store_path,
    store_tree,
)
from media_tools import geo
from media_tools.imagery.valid_area import area_share

# Larger renderings go to a tiled TIFF (browsers cannot show it; the map reads the tile pyramid).
PNG_DISPLAY_MAX_PIXELS = 40_000_000


def _image(job: MediaJob) -> SatelliteImage:
    assert job.satellite_image_id is not None
    return SatelliteImage.objects.get(id=job.satellite_image_id)


def render_step(job: MediaJob, progress: ProgressFn) -> str:
    """An 8-bit RGB(A) copy for display with a per-band percentile stretch; the original stays."""
    image = _image(job)
    suffix = ".png" if image.width * image.height <= PNG_DISPLAY_MAX_PIXELS else ".tif"
    stored: list[str] = []
    try:
        with local_copy(image.file.name or "") as path, tempfile.TemporaryDirectory(prefix="skymark-rd-") as tmp:
            out = Path(tmp) / f"display{suffix}"
            info = geo.render_display(path, out, on_progress=lambda pct: progress(0.9 * pct / 100))
            stored.append(store_path(out, f"satellite/display/i{image.id}{suffix}"))
        file_fields_replace(model=SatelliteImage, pk=image.id, changes={"display": stored[0]}, stored=stored)
    except Exception:
        delete_quietly(stored)
        raise
    bands = ",".join(str(b) for b in info.bands_used)
    return f"{info.width}×{info.height} px, bands {bands}, {suffix[1:].upper()}"


@contextlib.contextmanager
def _georef_inputs(image: SatelliteImage) -> Iterator[tuple[Path, Path | None]]:
    with contextlib.ExitStack() as stack:
        path = stack.enter_context(local_copy(image.file.name or ""))
        world = stack.enter_context(local_copy(image.world_file.name or "")) if image.world_file else None
        yield path, world


def georeference_step(job: MediaJob, progress: ProgressFn) -> str:
    """Pixel <-> WGS84 from GeoTIFF tags, a world file, corners or control points, in that order."""
    image = _image(job)
    with _georef_inputs(image) as (path, world):
        info = media_tools.inspect_image(path)
        if not (info.has_geotransform or world or image.corners or image.gcps):
            SatelliteImage.objects.filter(id=image.id).update(georef=None, georef_kind="", georef_rms_m=None)
            return "not georeferenced: no GeoTIFF tags, world file, corners or control points"
        ref = geo.georeference(
            path,
            world_file=world,
            world_file_crs=image.world_file_crs or None,
            corners=image.corners,
            gcps=[tuple(g) for g in image.gcps] if image.gcps else None,
            width=image.width,
            height=image.height,
        )
    progress(0.6)
    rms = ref.rms_m
    if ref.kind != "gcps" and image.gcps:
        # Control points that did not make the georeference check it independently.
        rms = geo.check_rms_m(ref, [tuple(g) for g in image.gcps])
    data = ref.to_dict()
    data["browser"] = geo.browser_lonlat_fit(ref)
    data["corners_latlon"] = {k: [float(v[0]), float(v[1])] for k, v in ref.corners().items()}
    SatelliteImage.objects.filter(id=image.id).update(georef=data, georef_kind=ref.kind, georef_rms_m=rms)
    source = {"geotiff": "GeoTIFF tags", "world_file": "world file", "corners": "corner coordinates"}
    how = source.get(ref.kind, f"{len(image.gcps or [])} control points")
    at = f", RMS {rms:.2f} m at {len(image.gcps or [])} control points" if rms is not None else ""
    return f"from {how} ({ref.crs}), {ref.gsd_m():.2f} m/px{at}"


def _tiles_home(image: SatelliteImage) -> str:
    # A fresh prefix per run: browsers cache tiles for a day, so a rebuilt pyramid gets new URLs.
    return f"tiles/i{image.id}/{secrets.token_hex(4)}"


def tiles_step(job: MediaJob, progress: ProgressFn) -> str:
    """A Zoomify pyramid (OpenLayers reads it natively) of the display rendering, built by libvips."""
    from media_tools.tiles import build_tiles  # libvips: loaded by the worker that builds tiles

    image = _image(job)
    if not image.display:
        raise media_tools.MediaError(f"{image.original_name}: render the image before building tiles")
    prefix = _tiles_home(image)
    try:
        with local_copy(image.display.name or "") as src, tempfile.TemporaryDirectory(prefix="skymark-tl-") as tmp:
            out = Path(tmp) / "pyramid"
            info = build_tiles(
                src,
                out,
                max_pixels=settings.SKYMARK_MAX_IMAGE_PIXELS,
                on_progress=lambda pct: progress(0.8 * pct / 100),
            )
            store_tree(out, prefix, on_progress=lambda f: progress(0.8 + 0.19 * f))
            shutil.rmtree(out, ignore_errors=True)
        with transaction.atomic():
            current = SatelliteImage.objects.select_for_update().get(id=image.id)
            old = current.tiles_prefix
            SatelliteImage.objects.filter(id=image.id).update(
                tiles_prefix=prefix, tile_size=info.tile_size, tile_levels=info.levels, tile_format=info.format
            )
            transaction.on_commit(lambda: delete_tree_quietly(old) if old else None)
    except Exception:
        delete_tree_quietly(prefix)
        raise
    return f"{info.tile_count} tiles in {info.levels} levels ({info.tile_size} px, {info.format.upper()})"


def valid_area_step(job: MediaJob, progress: ProgressFn) -> str:
    """Where the original has data, outside black or transparent borders: the lettered tasks draw
    their wrong options only there (annotator.compiling.area)."""
    image = _image(job)
    stored = satellite_image_valid_area_update(image_id=image.id)
    share = area_share(shape(stored), image.width, image.height)
    if share >= 1:
        return "data everywhere: no black or transparent borders"
    return f"data on {share:.0%} of the image; black or transparent borders left out"
