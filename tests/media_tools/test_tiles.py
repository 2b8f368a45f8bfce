"""media_tools.tiles: Zoomify pyramids that OpenLayers can read, and inputs that must leave nothing behind."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import pyvips

from media_tools import MediaError
from media_tools.tiles import TileInfo, build_tiles, read_zoomify_properties
from tests.factories import png_header_claiming

SATELLITE_RGB8 = "spacenet6_rotterdam_rgb8_1m_derived.tif"  # 300 x 300, 3 bands, Byte
ORTHOPHOTO_RGBA = "webodm_drone_orthophoto_0p5m.tif"  # 212 x 212, RGBA, transparent outside the mosaic


def ol_tile_paths(width: int, height: int, ext: str = "jpg", tile_size: int = 256) -> set[str]:
    """Every tile path ol/source/Zoomify will request, transcribed from its tileUrlFunction
    (OpenLayers 10.11, static/vendor/ol/ol.js): tiers by its "default" tierSizeCalculation, folder =
    (index in level + tiles in the levels above) // tileSize.

    Kept apart from media_tools.zoomify_tiers on purpose: this is the consumer's rule, the check is that
    libvips' folders agree with it.
    """
    tiers, span = [], tile_size
    while width > span or height > span:
        tiers.append((math.ceil(width / span), math.ceil(height / span)))
        span += span
    tiers.append((1, 1))
    tiers.reverse()
    count_up_to = [0]
    for z in range(1, len(tiers)):
        count_up_to.append(tiers[z - 1][0] * tiers[z - 1][1] + count_up_to[z - 1])
    paths = set()
    for z, (across, down) in enumerate(tiers):
        for y in range(down):
            for x in range(across):
                tile_index = x + y * across
                group = (tile_index + count_up_to[z]) // tile_size
                paths.add(f"TileGroup{group}/{z}-{x}-{y}.{ext}")
    return paths


def tile_files(out_dir: Path) -> set[str]:
    return {str(p.relative_to(out_dir)) for p in out_dir.rglob("*") if p.is_file() and p.name != "ImageProperties.xml"}


def properties(out_dir: Path) -> dict[str, str]:
    return dict(re.findall(r'(\w+)="([^"]*)"', (out_dir / "ImageProperties.xml").read_text()))


def noise_png(path: Path, width: int, height: int, bands: int = 3) -> Path:
    """Grain-like content (not flat), so JPEG does real work; each band its own noise."""
    planes = [pyvips.Image.gaussnoise(width, height, mean=128, sigma=40, seed=band) for band in range(bands)]
    planes[0].bandjoin(planes[1:]).cast("uchar").write_to_file(str(path))
    return path


def gradient(width: int, height: int) -> pyvips.Image:
    """Smooth RGB ramps: JPEG reproduces them closely, so tiles can be compared with the source."""
    xy = pyvips.Image.xyz(width, height)
    red, green = xy[0] * (255 / width), xy[1] * (255 / height)
    return red.bandjoin([green, (red + green) / 2]).cast("uchar")


def mean_abs_diff(a: pyvips.Image, b: pyvips.Image) -> float:
    return float((a.cast("float") - b.cast("float")).abs().avg())


def leftovers(folder: Path, *keep: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p not in keep)


def test_pyramid_over_256_tiles_matches_openlayers_layout(tmp_path: Path) -> None:
    # given a 5000 x 3000 RGB image: 324 tiles over 6 levels, so tiles spill into TileGroup1
    src = noise_png(tmp_path / "scene.png", 5000, 3000)
    out = tmp_path / "tiles"

    # when it is tiled
    info = build_tiles(src, out)

    # then ImageProperties.xml describes it ...
    props = properties(out)
    assert (props["WIDTH"], props["HEIGHT"], props["NUMTILES"], props["TILESIZE"]) == ("5000", "3000", "324", "256")
    assert info == TileInfo(width=5000, height=3000, tile_size=256, levels=6, tile_count=324, format="jpg")
    assert info.url_template == "{TileGroup}/{z}-{x}-{y}.jpg"
    # ... every tile is exactly where OpenLayers will ask for it, and nothing else is there
    files = tile_files(out)
    assert len(files) == 324
    assert files == ol_tile_paths(5000, 3000)
    assert {f.split("/")[0] for f in files} == {"TileGroup0", "TileGroup1"}
    # the top level is one tile of the whole image shrunk 32x; edge tiles are cropped, not padded
    top = pyvips.Image.new_from_file(str(out / "TileGroup0" / "0-0-0.jpg"))
    assert (top.width, top.height, top.bands) == (157, 94, 3)
    edge = pyvips.Image.new_from_file(str(out / "TileGroup1" / "5-19-11.jpg"))
    assert (edge.width, edge.height) == (5000 - 19 * 256, 3000 - 11 * 256)


@pytest.mark.parametrize(
    ("width", "height", "levels"),
    [(1, 1, 1), (256, 256, 1), (257, 100, 2), (300, 300, 2), (513, 1025, 4), (4096, 4096, 5)],
)
def test_tile_sets_match_openlayers_at_level_boundaries(tmp_path: Path, width: int, height: int, levels: int) -> None:
    # given grey images whose sizes sit on either side of a tile or level boundary
    src = tmp_path / "grey.png"
    gradient(width, height)[0].write_to_file(str(src))

    # when tiled
    info = build_tiles(src, tmp_path / "tiles")

    # then levels and tile paths agree with OpenLayers, and the description reads back the same
    assert (info.levels, info.tile_count) == (levels, len(ol_tile_paths(width, height)))
    assert tile_files(tmp_path / "tiles") == ol_tile_paths(width, height)
    assert read_zoomify_properties(tmp_path / "tiles") == info


def test_full_resolution_tile_shows_the_source_region(tmp_path: Path) -> None:
    # given a smooth 700 x 600 RGB image
    source = gradient(700, 600)
    src = tmp_path / "ramp.jpg"
    source.write_to_file(str(src), Q=98)
    decoded = pyvips.Image.new_from_file(str(src))

    # when tiled
    info = build_tiles(src, tmp_path / "tiles")

    # then a tile of the un-scaled level is the matching 256 px region (up to JPEG error), an edge tile too
    z = info.levels - 1
    for x, y in [(1, 1), (2, 2)]:
        tile = pyvips.Image.new_from_file(str(tmp_path / "tiles" / "TileGroup0" / f"{z}-{x}-{y}.jpg"))
        region = decoded.crop(x * 256, y * 256, min(256, 700 - x * 256), min(256, 600 - y * 256))
        assert (tile.width, tile.height) == (region.width, region.height)
        assert mean_abs_diff(tile, region) < 2.0
    # and not just any region: the neighbouring one differs clearly
    tile = pyvips.Image.new_from_file(str(tmp_path / "tiles" / "TileGroup0" / f"{z}-1-1.jpg"))
    assert mean_abs_diff(tile, decoded.crop(0, 256, 256, 256)) > 20


def test_alpha_is_kept_in_png_tiles(tmp_path: Path) -> None:
    # given an RGBA image whose left half is transparent (nodata outside a mosaic)
    rgb = gradient(600, 300)
    alpha = (pyvips.Image.xyz(600, 300)[0] >= 300).ifthenelse(255, 0).cast("uchar")
    src = tmp_path / "ortho.png"
    rgb.bandjoin(alpha).write_to_file(str(src))

    # when tiled
    info = build_tiles(src, tmp_path / "tiles")

    # then tiles are PNG with the alpha band, pixel for pixel at full resolution
    assert (info.format, info.url_template) == ("png", "{TileGroup}/{z}-{x}-{y}.png")
    assert tile_files(tmp_path / "tiles") == ol_tile_paths(600, 300, ext="png")
    assert read_zoomify_properties(tmp_path / "tiles").format == "png"
    tile = pyvips.Image.new_from_file(str(tmp_path / "tiles" / "TileGroup0" / "2-1-0.png"))
    source = pyvips.Image.new_from_file(str(src))
    assert tile.bands == 4
    assert mean_abs_diff(tile, source.crop(256, 0, 256, 256)) == 0
    assert tile.crop(0, 0, 44, 256)[3].max() == 0  # x 256..299 is still transparent
    assert tile.crop(44, 0, 212, 256)[3].min() == 255


@pytest.mark.parametrize("as_png", [False, True], ids=["geotiff", "png-rendering"])
def test_real_satellite_image(tmp_path: Path, testdata: Path, as_png: bool) -> None:
    # given the 300 x 300 8-bit RGB SpaceNet 6 scene, as the GeoTIFF itself or rendered to PNG first
    src = testdata / "satellite" / SATELLITE_RGB8
    if as_png:
        pyvips.Image.new_from_file(str(src)).write_to_file(str(tmp_path / "scene.png"))
        src = tmp_path / "scene.png"

    # when tiled
    info = build_tiles(src, tmp_path / "tiles")

    # then two levels, five tiles, and the top-left full-resolution tile is the top-left of the scene
    assert info == TileInfo(width=300, height=300, tile_size=256, levels=2, tile_count=5, format="jpg")
    assert tile_files(tmp_path / "tiles") == ol_tile_paths(300, 300)
    tile = pyvips.Image.new_from_file(str(tmp_path / "tiles" / "TileGroup0" / "1-0-0.jpg"))
    scene = pyvips.Image.new_from_file(str(src))
    assert mean_abs_diff(tile, scene.crop(0, 0, 256, 256)) < 6.0


def test_real_orthophoto_with_alpha(tmp_path: Path, testdata: Path) -> None:
    # given the WebODM drone orthophoto (RGBA GeoTIFF, transparent outside the mosaic)
    # when tiled
    info = build_tiles(testdata / "satellite" / ORTHOPHOTO_RGBA, tmp_path / "tiles")

    # then one PNG tile that keeps the transparent corners
    assert info == TileInfo(width=212, height=212, tile_size=256, levels=1, tile_count=1, format="png")
    tile = pyvips.Image.new_from_file(str(tmp_path / "tiles" / "TileGroup0" / "0-0-0.png"))
    assert (tile.width, tile.height, tile.bands) == (212, 212, 4)
    assert tile[3].min() == 0


def test_progress_climbs_to_100(tmp_path: Path) -> None:
    # given a 3000 x 3000 image
    src = noise_png(tmp_path / "scene.png", 3000, 3000)
    seen: list[int] = []

    # when tiled with a progress callback
    build_tiles(src, tmp_path / "tiles", on_progress=seen.append)

    # then progress starts at 0, rises strictly through intermediate values and ends at 100
    assert seen[0] == 0
    assert seen[-1] == 100
    assert seen == sorted(set(seen))
    assert len([p for p in seen if 0 < p < 100]) >= 5


def test_rebuild_replaces_an_earlier_pyramid(tmp_path: Path) -> None:
    # given a pyramid of a large image already in place
    out = tmp_path / "tiles"
    build_tiles(noise_png(tmp_path / "big.png", 2000, 2000), out)

    # when a smaller image is tiled into the same folder
    info = build_tiles(noise_png(tmp_path / "small.png", 300, 200), out)

    # then only the new pyramid is there, and no work folder is left beside it
    assert info.tile_count == 3
    assert tile_files(out) == ol_tile_paths(300, 200)
    assert leftovers(tmp_path) == ["big.png", "small.png", "tiles"]


def test_folder_that_is_not_a_pyramid_is_not_replaced(tmp_path: Path) -> None:
    # given an output folder that holds something else
    out = tmp_path / "tiles"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")

    # when / then tiling into it is refused and the folder is untouched
    with pytest.raises(FileExistsError):
        build_tiles(noise_png(tmp_path / "scene.png", 300, 200), out)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_huge_header_is_refused_before_decoding(tmp_path: Path) -> None:
    # given a tiny PNG whose IHDR claims 60000 x 60000 px
    src = tmp_path / "huge.png"
    src.write_bytes(png_header_claiming(60000, 60000))
    assert src.stat().st_size < 200

    # when / then it is refused as too large, naming the file and the size, and nothing is written
    with pytest.raises(MediaError) as err:
        build_tiles(src, tmp_path / "tiles")
    assert str(err.value) == ("huge.png: too large to tile safely (60000x60000 px exceeds the 400,000,000 pixel limit)")
    assert leftovers(tmp_path, src) == []


def test_pixel_limit_is_a_parameter(tmp_path: Path) -> None:
    src = noise_png(tmp_path / "scene.png", 300, 200)
    with pytest.raises(MediaError, match=r"^scene.png: too large to tile safely \(300x200 px exceeds the 50,000 "):
        build_tiles(src, tmp_path / "tiles", max_pixels=50_000)
    assert leftovers(tmp_path, src) == []


def test_truncated_image_leaves_nothing_half_written(tmp_path: Path) -> None:
    # given a PNG cut off halfway: the header is fine, so decoding fails after tiles have been written
    whole = noise_png(tmp_path / "whole.png", 2000, 2000)
    src = tmp_path / "cut.png"
    src.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])

    # when / then tiling fails naming the file, and neither the pyramid nor its work folder is left
    with pytest.raises(MediaError, match=r"^cut.png: could not be decoded and tiled \("):
        build_tiles(src, tmp_path / "tiles")
    assert leftovers(tmp_path, src, whole) == []


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("notes.png", b"not an image, just text\n", 'notes.png: not a readable image ("notes.png" is not a known'),
        ("empty.png", b"", "empty.png: the file is empty (0 bytes)"),
        ("missing.png", None, "missing.png: file not found"),
    ],
)
def test_unusable_files_are_refused(tmp_path: Path, name: str, content: bytes | None, message: str) -> None:
    # given a file that is not an image by content (or not there at all)
    src = tmp_path / name
    if content is not None:
        src.write_bytes(content)

    # when / then the message names the file and the reason, and nothing is written
    with pytest.raises(MediaError) as err:
        build_tiles(src, tmp_path / "tiles")
    assert str(err.value).startswith(message)
    assert leftovers(tmp_path, src) == []


def test_16_bit_image_is_refused_with_a_way_out(tmp_path: Path, testdata: Path) -> None:
    # given the 16-bit panchromatic GeoTIFF (needs a display stretch first)
    with pytest.raises(MediaError) as err:
        build_tiles(testdata / "satellite" / "spacenet6_rotterdam_pan_0p5m.tif", tmp_path / "tiles")
    assert str(err.value) == (
        "spacenet6_rotterdam_pan_0p5m.tif: 1-band ushort pixels cannot be tiled; "
        "tile its 8-bit grey, RGB or RGBA display rendering instead"
    )
    assert leftovers(tmp_path) == []


def test_tile_sizes_openlayers_would_misplace_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="tile_size must be 256"):
        build_tiles(noise_png(tmp_path / "scene.png", 300, 200), tmp_path / "tiles", tile_size=512)


def test_read_properties_of_a_folder_without_pyramid(tmp_path: Path) -> None:
    with pytest.raises(MediaError, match=r"^tiles: no ImageProperties.xml in the folder"):
        read_zoomify_properties(tmp_path / "tiles")
