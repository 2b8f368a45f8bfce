"""Zoomify tile pyramids with pyvips, in the layout OpenLayers' `ol/source/Zoomify` reads natively.

A pyramid folder holds `ImageProperties.xml` and `TileGroupN/z-x-y.jpg` (or `.png`, see below), where
z = 0 is the single, most zoomed-out tile. Point OpenLayers at it with
`new Zoomify({url: base + "/" + info.url_template, size: [info.width, info.height]})`.

Layout agreement. libvips numbers tiles from the top of the pyramid down and row by row, and puts tile n in
`TileGroup{n // 256}` (the Zoomify rule). OpenLayers computes the folder as
`(x + y * tilesAcross(z) + tiles in all levels above z) // tileSize`, with tiers from its "default"
tierSizeCalculation (ceil(size / (tileSize * 2**k))), which equals libvips' halving with rounding up.
So the two agree for 256 px tiles only, which is why `build_tiles` accepts no other size.

Alpha. JPEG tiles cannot carry alpha, so an image with an alpha band gets PNG tiles that keep it: a drone
orthophoto's transparent area outside the mosaic must stay distinguishable from black pixels that are
content (shadow, water, asphalt), or annotators would mark nodata as ground. PNG tiles are larger and
slower to write; images without alpha (the common case) get JPEG tiles.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyvips

from .errors import MediaError

# Same limit as media_tools.images: a header can claim 60,000 x 60,000 px in a file of 100 bytes.
MAX_PIXELS = 400_000_000
# The only tile size for which libvips' folders and OpenLayers' folder formula agree (module docstring).
ZOOMIFY_TILE_SIZE = 256
# Small objects (cars of a few pixels) must survive compression; Q75 (the libvips default) smears them.
JPEG_QUALITY = 85
PROPERTIES = "ImageProperties.xml"


@dataclass(frozen=True)
class TileInfo:
    width: int
    height: int
    tile_size: int
    levels: int  # zoom levels, z = 0 (one tile) .. levels - 1 (full resolution)
    tile_count: int
    format: str  # "jpg" or "png"

    @property
    def url_template(self) -> str:
        """Tile path below the pyramid folder in ol/source/Zoomify's placeholders; prefix it with `{base}/`.

        OpenLayers replaces `{TileGroup}` with the whole folder name ("TileGroup3"), not just the number.
        """
        return f"{{TileGroup}}/{{z}}-{{x}}-{{y}}.{self.format}"


def zoomify_tiers(width: int, height: int, tile_size: int = ZOOMIFY_TILE_SIZE) -> list[tuple[int, int]]:
    """Tiles (across, down) per zoom level, z = 0 first, as OpenLayers' "default" tierSizeCalculation."""
    tiers = []
    span = tile_size
    while width > span or height > span:
        tiers.append((-(-width // span), -(-height // span)))
        span *= 2
    tiers.append((1, 1))
    return tiers[::-1]


def build_tiles(
    src: Path,
    out_dir: Path,
    *,
    tile_size: int = ZOOMIFY_TILE_SIZE,
    max_pixels: int = MAX_PIXELS,
    on_progress: Callable[[int], None] | None = None,
) -> TileInfo:
    """Write a Zoomify pyramid of the 8-bit grey/RGB/RGBA image `src` to `out_dir`, in one streaming pass.

    The pyramid is written to a hidden sibling folder and renamed to `out_dir` when complete, so `out_dir`
    is either the whole new pyramid or untouched. An earlier pyramid in `out_dir` is replaced (a retried job
    succeeds); any other non-empty folder there raises FileExistsError. `on_progress` gets 0..100, never
    decreasing, ending with 100. Raises MediaError naming `src` when the image cannot be tiled.
    """
    if tile_size != ZOOMIFY_TILE_SIZE:
        raise ValueError(f"tile_size must be {ZOOMIFY_TILE_SIZE}: OpenLayers finds other sizes in the wrong folders")
    _check_target(out_dir)
    image = _open_checked(src, max_pixels)
    suffix = ".png" if image.hasalpha() else f".jpg[Q={JPEG_QUALITY}]"
    if on_progress is not None:
        _report_progress(image, on_progress)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", suffix=".partial", dir=out_dir.parent))
    try:
        pyramid = work / "pyramid"
        try:
            image.dzsave(str(pyramid), layout="zoomify", tile_size=tile_size, overlap=0, suffix=suffix)
        except pyvips.Error as exc:
            raise MediaError(f"{src.name}: could not be decoded and tiled ({_reason(exc, src, work)})") from exc
        # libvips' own metadata dump: not part of Zoomify, and it would publish the source's tags with the tiles.
        (pyramid / "vips-properties.xml").unlink(missing_ok=True)
        info = read_zoomify_properties(pyramid)
        _check_layout(info)
        if out_dir.exists():  # an earlier pyramid (_check_target): move it aside, removed with `work`
            os.replace(out_dir, work / "previous")
        os.replace(pyramid, out_dir)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if on_progress is not None:
        on_progress(100)
    return info


def read_zoomify_properties(out_dir: Path) -> TileInfo:
    """Describe the pyramid in `out_dir` from its ImageProperties.xml. Raises MediaError."""
    path = out_dir / PROPERTIES
    try:
        # The file is one build_tiles wrote (no DTD, no entities), so the stdlib parser is safe here.
        attrs = ET.parse(path).getroot().attrib  # noqa: S314
        width, height, size, count = (int(attrs[key]) for key in ("WIDTH", "HEIGHT", "TILESIZE", "NUMTILES"))
    except FileNotFoundError:
        raise MediaError(f"{out_dir.name}: no {PROPERTIES} in the folder, so it is not a Zoomify tile pyramid")
    except (ET.ParseError, KeyError, ValueError) as exc:
        raise MediaError(f"{PROPERTIES}: not a valid Zoomify description ({type(exc).__name__}: {exc})") from exc
    fmt = "png" if (out_dir / "TileGroup0" / "0-0-0.png").is_file() else "jpg"
    return TileInfo(width, height, size, len(zoomify_tiers(width, height, size)), count, fmt)


def _check_target(out_dir: Path) -> None:
    """Refuse before any work if `out_dir` holds something other than an earlier pyramid."""
    if out_dir.exists() and not (out_dir / PROPERTIES).is_file() and any(out_dir.iterdir()):
        raise FileExistsError(f"{out_dir} exists and is not a tile pyramid; not replacing it")


def _open_checked(src: Path, max_pixels: int) -> pyvips.Image:
    """Open `src` for one top-to-bottom pass after checking its header. Raises MediaError."""
    if not src.is_file():
        raise MediaError(f"{src.name}: file not found")
    if src.stat().st_size == 0:
        raise MediaError(f"{src.name}: the file is empty (0 bytes)")
    try:
        # Sequential access decodes in strips as dzsave consumes them, so a 20,000 px square image never sits
        # in memory whole. fail_on="truncated" makes a cut-off file an error instead of tiles of grey.
        image = pyvips.Image.new_from_file(str(src), access="sequential", fail_on="truncated")
    except pyvips.Error as exc:
        raise MediaError(f"{src.name}: not a readable image ({_reason(exc, src)})") from exc
    # Only the header has been read so far: refuse a decompression bomb before a single pixel is decoded.
    width, height = image.width, image.height
    if width * height > max_pixels:
        raise MediaError(
            f"{src.name}: too large to tile safely ({width}x{height} px exceeds the {max_pixels:,} pixel limit)"
        )
    if image.format != "uchar" or image.bands not in (1, 2, 3, 4):
        raise MediaError(
            f"{src.name}: {image.bands}-band {image.format} pixels cannot be tiled; "
            "tile its 8-bit grey, RGB or RGBA display rendering instead"
        )
    return image


def _report_progress(image: pyvips.Image, on_progress: Callable[[int], None]) -> None:
    """Forward libvips' eval signal as whole percentages, each reported once and never going back."""
    last = 0
    on_progress(0)

    def on_eval(_image: pyvips.Image, progress: Any) -> None:
        nonlocal last
        # 100 is reported by build_tiles once the pyramid is in place, not when the last strip is decoded.
        percent = min(int(progress.percent), 99)
        if percent > last:
            last = percent
            on_progress(percent)

    image.set_progress(True)
    image.signal_connect("eval", on_eval)


def _check_layout(info: TileInfo) -> None:
    """Fail loudly if libvips' pyramid ever stops matching the tiers OpenLayers will ask for."""
    expected = sum(across * down for across, down in zoomify_tiers(info.width, info.height, info.tile_size))
    if info.tile_count != expected:
        raise RuntimeError(f"libvips wrote {info.tile_count} tiles where OpenLayers expects {expected}")


def _reason(exc: pyvips.Error, *paths: Path) -> str:
    """libvips' first error line, with full paths cut down to names (messages must not leak the layout)."""
    lines = [line for line in (exc.detail or exc.message or "").splitlines() if line.strip()]
    reason = lines[0] if lines else "unknown libvips error"
    for path in paths:
        reason = reason.replace(str(path), path.name)
    # Drop libvips' "VipsForeignLoad: " / "vipspng: " prefix; the file name already says where it happened.
    head, sep, tail = reason.partition(": ")
    return tail if sep and " " not in head else reason
