"""media_tools.imagery.valid_area: where an image has data, traced on a downsampled read, against
generated images whose no-data is known exactly and against real orthophotos and GeoTIFFs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
import rasterio
import rasterio.features
import shapely
from affine import Affine
from PIL import Image, ImageDraw
from shapely.affinity import rotate
from shapely.geometry import MultiPolygon, Point, Polygon, box

from media_tools.errors import MediaError
from media_tools.geo import orthophoto_from_frame, read_gcp_csv
from media_tools.imagery.valid_area import (
    BLACK_MAX_DN,
    MAX_VERTICES,
    area_share,
    border_precision_px,
    mask_outline,
    mask_shape,
    valid_area,
)

pytestmark = pytest.mark.filterwarnings("ignore::rasterio.errors.NotGeoreferencedWarning")
RNG = np.random.default_rng(7)


def _iou(a: shapely.Geometry, b: shapely.Geometry) -> float:
    return float(a.intersection(b).area / a.union(b).area)


def _texture(height: int, width: int) -> np.ndarray:
    """Daylight-like content: smooth stripes (fields, roads) with sensor noise, never near black."""
    stripes = np.add.outer(np.arange(height) / 3, np.arange(width) / 5) % 150 + 60
    colour = np.dstack([stripes, stripes * 0.8, stripes * 0.6])
    return (colour + RNG.integers(0, 10, (height, width, 3))).astype(np.uint8)


def _rasterized(area: shapely.Geometry, width: int, height: int) -> np.ndarray:
    if area.is_empty:
        return np.zeros((height, width), bool)
    return rasterio.features.rasterize([area], out_shape=(height, width)).astype(bool)


def test_a_rotated_square_on_black_is_the_square_despite_jpeg_noise(tmp_path: Path) -> None:
    # given a JPEG: black, with a square turned 30 degrees in the middle holding texture
    width, height = 900, 600
    square = rotate(box(250, 100, 650, 500), 30)
    inside = _rasterized(square, width, height)
    pixels = np.where(inside[..., None], _texture(height, width), 0).astype(np.uint8)
    path = tmp_path / "warped.jpg"
    Image.fromarray(pixels).save(path, quality=80)
    # when its valid area is traced
    area = valid_area(path)
    # then it is the square, to within the border a mask cell allows, with no specks of JPEG noise
    assert isinstance(area, Polygon) and _iou(area, square) > 0.98
    assert area.buffer(border_precision_px(width, height)).covers(square.buffer(-border_precision_px(width, height)))
    assert not area.contains(Point(50, 50)) and area.contains(Point(450, 300))
    assert area_share(area, width, height) == pytest.approx(square.area / (width * height), abs=0.01)


def test_transparent_corners_are_left_out_whatever_colour_is_under_them(tmp_path: Path) -> None:
    # given an RGBA PNG whose four corner triangles are transparent white
    width, height = 400, 400
    octagon = Polygon([(100, 0), (300, 0), (400, 100), (400, 300), (300, 400), (100, 400), (0, 300), (0, 100)])
    alpha = _rasterized(octagon, width, height)
    rgba = np.dstack([np.where(alpha[..., None], _texture(height, width), 255), alpha * 255]).astype(np.uint8)
    path = tmp_path / "ortho.png"
    Image.fromarray(rgba, "RGBA").save(path)
    # when / then the area is the octagon
    area = valid_area(path)
    assert _iou(area, octagon) > 0.98
    assert not area.contains(Point(10, 10)) and not area.contains(Point(390, 390))


def test_black_under_full_alpha_is_no_data_too(tmp_path: Path) -> None:
    # given an RGBA PNG opaque everywhere, its left half black (a frame masked black before warping)
    width, height = 300, 200
    rgb = _texture(height, width)
    rgb[:, :150] = 0
    path = tmp_path / "masked.png"
    Image.fromarray(np.dstack([rgb, np.full((height, width), 255, np.uint8)]), "RGBA").save(path)
    # then only the right half has data
    assert _iou(valid_area(path), box(150, 0, 300, 200)) > 0.98


@pytest.mark.parametrize("dtype", ["uint16", "float32"])
def test_a_geotiff_nodata_value_marks_no_data_beyond_8_bits(tmp_path: Path, dtype: str) -> None:
    # given a GeoTIFF whose top third is the nodata value (and, for floats, one NaN stripe below it)
    width, height, nodata = 600, 450, 9999
    data = RNG.integers(100, 4000, size=(height, width)).astype(dtype)
    data[:150] = nodata
    if dtype == "float32":
        data[150:200] = np.nan
    path = tmp_path / f"scene_{dtype}.tif"
    profile = {"driver": "GTiff", "width": width, "height": height, "count": 1, "dtype": dtype, "nodata": nodata,
               "crs": "EPSG:32631", "transform": Affine(0.5, 0, 593270, 0, -0.5, 5747657)}  # fmt: skip
    with rasterio.open(path, "w", **profile) as ds:
        ds.write(data, 1)
    # then the area starts below the nodata rows (and below the NaN rows: not a number is no data)
    top = 200 if dtype == "float32" else 150
    assert _iou(valid_area(path), box(0, top, width, height)) > 0.98


def test_zero_in_every_band_of_16_bit_data_without_a_mask_is_the_warp_fill(tmp_path: Path) -> None:
    width, height = 320, 240
    data = RNG.integers(50, 3000, size=(2, height, width)).astype("uint16")
    data[:, :, 200:] = 0
    data[0, 10, 10] = 0  # one band dark at one pixel is still data
    path = tmp_path / "fill.tif"
    with rasterio.open(path, "w", driver="GTiff", width=width, height=height, count=2, dtype="uint16") as ds:
        ds.write(data)
    assert _iou(valid_area(path), box(0, 0, 200, height)) > 0.98


def test_an_image_with_data_everywhere_is_its_whole_rectangle(tmp_path: Path) -> None:
    # given a photo with a few dark specks (car windows, shadows) but no border
    width, height = 640, 480
    rgb = _texture(height, width)
    for x, y in ((100, 100), (300, 200), (500, 400)):
        rgb[y : y + 6, x : x + 6] = 0
    path = tmp_path / "photo.png"
    Image.fromarray(rgb).save(path)
    # then the area is exactly the image: the specks are filled, not holes
    area = valid_area(path)
    assert area.equals(box(0, 0, width, height)) and area_share(area, width, height) == 1.0


def test_an_all_black_image_has_no_valid_area(tmp_path: Path) -> None:
    path = tmp_path / "black.png"
    Image.new("RGB", (200, 100), (BLACK_MAX_DN, 0, 0)).save(path)
    area = valid_area(path)
    assert area.is_empty and area_share(area, 200, 100) == 0.0


def test_a_large_image_is_read_downsampled_and_stays_within_a_cell(tmp_path: Path) -> None:
    # given a 3000 x 1000 image, data left of a slanted line
    width, height = 3000, 1000
    keep = Polygon([(0, 0), (2000, 0), (1500, height), (0, height)])
    img = Image.new("RGB", (width, height))
    ImageDraw.Draw(img).polygon(list(keep.exterior.coords), fill=(120, 130, 90))
    path = tmp_path / "wide.png"
    img.save(path)
    # then the mask is at most 512 cells wide, and the outline is that accurate
    assert mask_shape(width, height) == (171, 512)
    cell = border_precision_px(width, height)
    assert cell == pytest.approx(5.86, abs=0.01)
    area = valid_area(path)
    assert area.buffer(cell).covers(keep) and keep.buffer(cell).covers(area)


def test_specks_are_dropped_and_the_outline_is_kept_short() -> None:
    # given a mask of a large field with a ragged edge and scattered single-cell noise
    mask = np.zeros((400, 400), bool)
    mask[50:350, 50:350] = True
    mask[50:350, 50:350] &= RNG.random((300, 300)) > 0.01  # pinholes inside
    edge = RNG.integers(0, 12, size=300)
    for row, cut in enumerate(edge):
        mask[50 + row, 350 - cut : 350] = False  # ragged right edge
    mask |= RNG.random((400, 400)) > 0.995  # specks outside
    # when traced
    area = mask_outline(mask, 4000, 4000)
    # then one polygon without holes, under the vertex budget, inside the image
    assert isinstance(area, Polygon) and not area.interiors
    assert shapely.get_num_coordinates(area) <= MAX_VERTICES
    assert box(0, 0, 4000, 4000).covers(area)
    assert _iou(area, box(500, 500, 3500 - 60, 3500)) > 0.95


def test_many_separate_parts_stay_separate_and_valid() -> None:
    mask = np.zeros((300, 300), bool)
    for r in range(0, 300, 60):
        for c in range(0, 300, 60):
            mask[r + 5 : r + 45, c + 5 : c + 45] = True
    area = mask_outline(mask, 300, 300)
    assert isinstance(area, MultiPolygon) and len(area.geoms) == 25 and area.is_valid
    assert shapely.get_num_coordinates(area) <= MAX_VERTICES


def test_an_unreadable_file_names_itself(tmp_path: Path, testdata: Path) -> None:
    cut = tmp_path / "cut.jpg"
    cut.write_bytes((testdata / "satellite" / "opencv_aero1_oblique_aerial.jpg").read_bytes()[:20000])
    with pytest.raises(MediaError, match=r"^cut\.jpg: "):
        valid_area(cut)
    with pytest.raises(MediaError, match="file not found"):
        valid_area(tmp_path / "gone.png")


# ---- real images ----------------------------------------------------------------------------


def _agreement(path: Path) -> tuple[float, float]:
    """(share of the traced area, share of pixels where it agrees with the file's own full-resolution
    mask): the reference is read at full size, the trace on at most 512 cells a side."""
    area = valid_area(path)
    with rasterio.open(path) as ds:
        reference = ds.dataset_mask() > 0
        width, height = ds.width, ds.height
    return area_share(area, width, height), float((_rasterized(area, width, height) == reference).mean())


@pytest.mark.parametrize(
    ("name", "share"),
    [
        ("satellite/webodm_drone_orthophoto_0p5m.tif", 0.977),  # alpha outside the mosaic
        ("satellite/landsat7_bahamas_RGB.byte.tif", 0.675),  # nodata 0 around a tilted scene
        ("brighton_beach/brighton_beach_ortho_utm15n.tif", 0.363),  # alpha around a rotated mosaic
    ],
)
def test_real_orthophotos_and_geotiffs_follow_their_own_masks(testdata: Path, name: str, share: float) -> None:
    traced, agreement = _agreement(testdata / name)
    assert traced == pytest.approx(share, abs=0.01)
    assert agreement > 0.98


@pytest.mark.parametrize(
    "name",
    [
        "spacenet6_rotterdam_pan_0p5m.tif",
        "spacenet6_rotterdam_ms4band_1m_float64.tif",
        "opencv_aero1_oblique_aerial.jpg",
    ],
)
def test_real_images_without_borders_are_whole(testdata: Path, name: str) -> None:
    path = testdata / "satellite" / name
    with rasterio.open(path) as ds:
        assert valid_area(path).equals(box(0, 0, ds.width, ds.height))


def test_the_demo_saro_orthophoto_keeps_only_the_road_corridor(testdata: Path, tmp_path: Path) -> None:
    # given the demo's orthophoto: the first Saro frame (black outside the road corridor) warped
    # north-up, transparent outside the warped frame
    frame = tmp_path / "frame0.png"
    video = testdata / "videos" / "saro_roundabout_topdown_1080p_3fps.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-i", str(video), "-frames:v", "1", str(frame)], check=True)
    ortho = tmp_path / "ortho.tif"
    orthophoto_from_frame(frame, ortho, gcps=read_gcp_csv(testdata / "videos" / "saro_roundabout_gcp_pixels_1080p.csv"))
    # when its valid area is traced
    area = valid_area(ortho)
    with rasterio.open(ortho) as ds:
        rgba = ds.read()
        width, height = ds.width, ds.height
    # then neither the transparent border nor the black mask inside the frame counts
    opaque = rgba[3] > 0
    data = opaque & (rgba[:3].max(axis=0) > BLACK_MAX_DN)
    assert opaque.mean() > 0.5 and area_share(area, width, height) == pytest.approx(data.mean(), abs=0.02)
    traced = _rasterized(area, width, height)
    assert (traced == data).mean() > 0.97
    # and it stays one polygon of a few hundred vertices at most
    assert isinstance(area, Polygon) and shapely.get_num_coordinates(area) <= MAX_VERTICES
