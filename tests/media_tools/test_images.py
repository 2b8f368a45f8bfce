"""media_tools.images: header checks of real satellite/aerial images and of broken files."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
import rasterio
import rasterio.io
from affine import Affine

from media_tools.errors import MediaError
from media_tools.images import inspect_image
from tests.factories import png_bytes, png_header_claiming

# name: (width, height, bands, dtype, crs, nodata, has_alpha, mode) as SOURCES.md states them
SATELLITE = {
    "spacenet6_rotterdam_pan_0p5m.tif": (600, 600, 1, "uint16", "EPSG:32631", None, False, "I;16"),
    "spacenet6_rotterdam_ms4band_1m_float64.tif": (300, 300, 4, "float64", "EPSG:32631", None, False, "4xfloat64"),
    "spacenet6_rotterdam_rgb8_1m_derived.tif": (300, 300, 3, "uint8", "EPSG:32631", None, False, "RGB"),
    "webodm_drone_orthophoto_0p5m.tif": (212, 212, 4, "uint8", "EPSG:32615", None, True, "RGBA"),
    "landsat7_bahamas_RGB.byte.tif": (791, 718, 3, "uint8", "EPSG:32618", 0.0, False, "RGB"),
    "opencv_aero1_oblique_aerial.jpg": (640, 480, 3, "uint8", None, None, False, "RGB"),
    "opencv_aero3_oblique_aerial.jpg": (640, 480, 3, "uint8", None, None, False, "RGB"),
}


def test_every_testdata_image_is_listed_here(testdata: Path) -> None:
    assert sorted(p.name for p in (testdata / "satellite").iterdir()) == sorted(SATELLITE)


@pytest.mark.parametrize("name", sorted(SATELLITE))
def test_inspect_real_images(testdata: Path, name: str) -> None:
    # given a real satellite / aerial image (any band count and data type, float64 multispectral included)
    width, height, bands, dtype, crs, nodata, alpha, mode = SATELLITE[name]

    # when its header is read
    info = inspect_image(testdata / "satellite" / name)

    # then size, bands, data type, CRS, nodata and alpha agree with SOURCES.md
    assert (info.width, info.height, info.bands, info.dtype) == (width, height, bands, dtype)
    assert (info.crs, info.nodata, info.has_alpha, info.mode) == (crs, nodata, alpha, mode)
    assert info.has_geotransform is (crs is not None)
    assert info.format == ("JPEG" if name.endswith(".jpg") else "TIFF")


def test_inspect_generated_png(tmp_path: Path) -> None:
    # given a 200x100 RGB PNG
    path = tmp_path / "map.png"
    path.write_bytes(png_bytes(200, 100))

    # then
    info = inspect_image(path)
    assert (info.width, info.height, info.format, info.mode, info.bands) == (200, 100, "PNG", "RGB", 3)


def test_huge_header_is_refused_before_decoding(bad_media: dict[str, Path]) -> None:
    # given a 100-byte PNG whose header claims 60000 x 60000 px
    path = bad_media["huge_image"]
    assert path.stat().st_size < 200

    # when / then it is refused as too large (not "unreadable"), naming the file and the pixels it claims
    with pytest.raises(MediaError) as err:
        inspect_image(path)
    assert str(err.value) == (
        "huge.png: the image is too large to open safely (60000×60000 px exceeds the 400,000,000 pixel limit)"
    )


def test_image_under_the_documented_limit_is_accepted(tmp_path: Path) -> None:
    # given a header of 10000 x 10000 px (100M px, a plausible satellite scene, under MAX_PIXELS = 400M)
    path = tmp_path / "scene.png"
    path.write_bytes(png_header_claiming(10000, 10000))

    # then its header is read
    assert inspect_image(path).width == 10000


def test_explicit_pixel_limit(tmp_path: Path) -> None:
    # given a 200x100 image and a limit of 10,000 px
    path = tmp_path / "big.png"
    path.write_bytes(png_bytes(200, 100))

    # then the message gives size and limit
    with pytest.raises(MediaError, match=r"^big\.png: .*\(200×100 px exceeds the 10,000 pixel limit\)$"):
        inspect_image(path, max_pixels=10_000)


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("empty", "the file is empty (0 bytes)"),
        ("text_image", "not a readable image"),
        ("text", "not a readable image"),
        ("truncated", "not a readable image"),
        ("missing", "file not found"),
    ],
)
def test_bad_files_raise_with_file_name(bad_media: dict[str, Path], kind: str, reason: str) -> None:
    path = bad_media[kind]
    with pytest.raises(MediaError) as err:
        inspect_image(path)
    assert str(err.value).startswith(f"{path.name}: ")
    assert reason in str(err.value)


def test_inspect_does_not_decode_pixels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # given a PNG with a valid header and pixel data that cannot be decoded
    path = tmp_path / "map.png"
    data = bytearray(png_bytes(64, 64))
    idat = data.index(b"IDAT") + 4
    data[idat : idat + 8] = b"\xff" * 8
    path.write_bytes(bytes(data))

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("inspect_image decoded the pixels")

    monkeypatch.setattr(rasterio.io.DatasetReader, "read", refuse)

    # then the header alone answers
    assert (inspect_image(path).width, inspect_image(path).height) == (64, 64)


def test_png_named_jpg_is_refused(tmp_path: Path) -> None:
    # given a PNG whose name says JPEG
    path = tmp_path / "photo.jpg"
    path.write_bytes(png_bytes(20, 10))

    # then the message says what it is and what the name claims
    with pytest.raises(MediaError, match=r"^photo\.jpg: the file is a PNG image but its name ends in \.jpg$"):
        inspect_image(path)


def test_text_named_tif_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ortho.tif"
    path.write_text("GEOGCS but not a TIFF\n")
    with pytest.raises(MediaError, match=r"^ortho\.tif: not a readable image \(not a TIFF, PNG or JPEG file\)$"):
        inspect_image(path)


def _geotiff(path: Path, transform: Affine, crs: str = "EPSG:32631") -> Path:
    with rasterio.open(
        path, "w", driver="GTiff", width=8, height=6, count=1, dtype="uint8", crs=crs, transform=transform
    ) as ds:
        ds.write(np.zeros((1, 6, 8), "uint8"))
    return path


@pytest.mark.parametrize(
    "transform",
    [Affine(0, 0, 593270, 0, 0, 5747657), Affine(0.5, 0, 593270, 0, 0, 5747657), Affine(np.nan, 0, 0, 0, -1, 0)],
    ids=["zero-pixel-size", "zero-row-height", "nan-pixel-size"],
)
def test_broken_geotransform_is_refused(tmp_path: Path, transform: Affine) -> None:
    # given a GeoTIFF whose tags hold a geotransform without a usable pixel size
    path = _geotiff(tmp_path / "scene.tif", transform)

    # then it is refused naming the tags, not "unreadable"
    with pytest.raises(MediaError, match=r"^scene\.tif: the geotransform in its GeoTIFF tags is broken \(pixel size"):
        inspect_image(path)


def test_unresolvable_crs_is_refused(tmp_path: Path) -> None:
    # given a GeoTIFF whose ProjectedCSTypeGeoKey was damaged to an EPSG code that does not exist
    path = _geotiff(tmp_path / "scene.tif", Affine(0.5, 0, 593270, 0, -0.5, 5747657))
    data = path.read_bytes()
    assert data.count(struct.pack("<H", 32631)) == 1
    path.write_bytes(data.replace(struct.pack("<H", 32631), struct.pack("<H", 32799)))

    # then it is refused as a CRS problem
    with pytest.raises(MediaError, match=r"^scene\.tif: GDAL cannot resolve the CRS in its georeference"):
        inspect_image(path)


def test_valid_generated_geotiff_reports_its_georeference(tmp_path: Path) -> None:
    path = _geotiff(tmp_path / "scene.tif", Affine(0.5, 0, 593270, 0, -0.5, 5747657))
    info = inspect_image(path)
    assert (info.crs, info.has_geotransform, info.mode, info.dtype) == ("EPSG:32631", True, "L", "uint8")
