"""Fixtures for media_tools.geo: the Särö frame and control points, and a corpus of broken images."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest
import rasterio
from affine import Affine

from media_tools.geo import read_gcp_csv
from tests.factories import png_bytes, png_header_claiming

SARO_VIDEO = "videos/saro_roundabout_topdown_1080p_3fps.mp4"
SARO_GCPS = "videos/saro_roundabout_gcp_pixels_1080p.csv"


@pytest.fixture(scope="session")
def saro_frame(testdata: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first frame of the Särö roundabout video as a PNG (1920x1080)."""
    out = tmp_path_factory.mktemp("saro") / "frame0.png"
    subprocess.run(
        ["ffmpeg", "-v", "error", "-ss", "0", "-i", str(testdata / SARO_VIDEO), "-frames:v", "1", str(out)],
        check=True,
    )
    return out


@pytest.fixture(scope="session")
def saro_gcps(testdata: Path) -> list[tuple[float, float, float, float]]:
    return read_gcp_csv(testdata / SARO_GCPS)


def write_geotiff(path: Path, transform: Affine, *, crs: str = "EPSG:32631", width: int = 8, height: int = 6) -> Path:
    with rasterio.open(
        path, "w", driver="GTiff", width=width, height=height, count=1, dtype="uint8", crs=crs, transform=transform
    ) as ds:
        ds.write(np.arange(width * height, dtype="uint8").reshape(1, height, width))
    return path


@pytest.fixture
def broken_images(testdata: Path, tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """name -> (file, the start of the message it must raise). Each looks like an image by its name."""
    out = tmp_path / "broken"
    out.mkdir()
    (out / "huge.png").write_bytes(png_header_claiming(60000, 60000))
    (out / "photo.jpg").write_bytes(png_bytes(40, 30))
    (out / "notes.tif").write_text("a text file, not a TIFF\n")
    (out / "empty.tif").write_bytes(b"")
    # A JPEG cut short: its header is fine, its pixels are not (found only when decoding).
    (out / "cut.jpg").write_bytes((testdata / "satellite" / "opencv_aero1_oblique_aerial.jpg").read_bytes()[:20000])
    write_geotiff(out / "zero_pixel.tif", Affine(0, 0, 593270, 0, 0, 5747657))
    bad_crs = write_geotiff(out / "bad_crs.tif", Affine(0.5, 0, 593270, 0, -0.5, 5747657))
    # Damage the ProjectedCSTypeGeoKey (32631) to a code that no EPSG registry has.
    bad_crs.write_bytes(bad_crs.read_bytes().replace(struct.pack("<H", 32631), struct.pack("<H", 32799)))
    return {
        "huge": (out / "huge.png", "huge.png: the image is too large to open safely (60000×60000 px exceeds"),
        "png_named_jpg": (out / "photo.jpg", "photo.jpg: the file is a PNG image but its name ends in .jpg"),
        "text_named_tif": (out / "notes.tif", "notes.tif: not a readable image"),
        "empty": (out / "empty.tif", "empty.tif: the file is empty (0 bytes)"),
        "truncated_jpeg": (out / "cut.jpg", "cut.jpg: the pixels cannot be read (libjpeg: Premature end of JPEG file)"),
        "zero_pixel_size": (out / "zero_pixel.tif", "zero_pixel.tif: the geotransform in its GeoTIFF tags is broken"),
        "unknown_crs": (out / "bad_crs.tif", "bad_crs.tif: GDAL cannot resolve the CRS in its georeference"),
    }
