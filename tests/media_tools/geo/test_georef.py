"""media_tools.geo.georef: pixel <-> WGS84 from GeoTIFF tags, world files, corners and control points."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import rasterio
from affine import Affine
from pyproj import Geod, Transformer
from rasterio.control import GroundControlPoint

from media_tools.errors import MediaError
from media_tools.geo import (
    GeoReference,
    georef_from_corners,
    georef_from_gcps,
    georef_from_geotiff,
    georef_from_world_file,
    georeference,
)
from tests.factories import png_bytes
from tests.media_tools.geo.conftest import write_geotiff

GEOD = Geod(ellps="WGS84")
ROTTERDAM = ((4.354709, 4.359147), (51.869146, 51.871893))
# name: (crs, (lon min, lon max), (lat min, lat max), GSD in m) from SOURCES.md
GEOTIFFS = {
    "spacenet6_rotterdam_pan_0p5m.tif": ("EPSG:32631", *ROTTERDAM, 0.5),
    "spacenet6_rotterdam_ms4band_1m_float64.tif": ("EPSG:32631", *ROTTERDAM, 1.0),
    "spacenet6_rotterdam_rgb8_1m_derived.tif": ("EPSG:32631", *ROTTERDAM, 1.0),
    "webodm_drone_orthophoto_0p5m.tif": ("EPSG:32615", (-91.994513, -91.993105), (46.842168, 46.843134), 0.5),
    "landsat7_bahamas_RGB.byte.tif": ("EPSG:32618", (-78.958650, -76.574924), (23.564991, 25.550874), 300.04),
}
JPEGS = ["opencv_aero1_oblique_aerial.jpg", "opencv_aero3_oblique_aerial.jpg"]


def _metres(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    return float(GEOD.inv(lon1, lat1, lon2, lat2)[2])


@pytest.mark.parametrize("name", sorted(GEOTIFFS))
def test_geotiff_corners_match_the_published_bounds(testdata: Path, name: str) -> None:
    # given a real GeoTIFF and its WGS84 bounds from SOURCES.md
    crs, (lon_min, lon_max), (lat_min, lat_max), gsd = GEOTIFFS[name]

    # when it is georeferenced from its tags
    ref = georef_from_geotiff(testdata / "satellite" / name)

    # then the bounds of its four corners agree within 1 m (in degrees at that latitude)
    assert (ref.kind, ref.crs, ref.rms_m) == ("geotiff", crs, None)
    corners = ref.corners()
    lats = [lat for lat, _ in corners.values()]
    lons = [lon for _, lon in corners.values()]
    one_m_lat = 1 / 111_320
    one_m_lon = 1 / (111_320 * math.cos(math.radians((lat_min + lat_max) / 2)))
    assert abs(min(lons) - lon_min) < one_m_lon and abs(max(lons) - lon_max) < one_m_lon
    assert abs(min(lats) - lat_min) < one_m_lat and abs(max(lats) - lat_max) < one_m_lat
    # north-up on the UTM grid: top above bottom, left west of right
    assert corners["tl"][0] > corners["bl"][0] and corners["tl"][1] < corners["tr"][1]
    assert ref.gsd_m() == pytest.approx(gsd, rel=0.002)


@pytest.mark.parametrize("name", sorted(GEOTIFFS))
def test_pixel_lonlat_round_trip(testdata: Path, name: str) -> None:
    # given random pixel positions, the image corners included
    ref = georef_from_geotiff(testdata / "satellite" / name)
    rng = np.random.default_rng(7)
    x = np.concatenate([[0, ref.width, ref.width, 0], rng.uniform(0, ref.width, 500)])
    y = np.concatenate([[0, 0, ref.height, ref.height], rng.uniform(0, ref.height, 500)])

    # when mapped to lon/lat and back (vectorised)
    lon, lat = ref.pixel_to_lonlat(x, y)
    x2, y2 = ref.lonlat_to_pixel(lon, lat)

    # then within 1e-6 px; scalars give floats
    assert np.max(np.abs(x2 - x)) < 1e-6 and np.max(np.abs(y2 - y)) < 1e-6
    single = ref.pixel_to_lonlat(10.5, 20.25)
    assert isinstance(single[0], float) and single == (pytest.approx(lon[4] * 0 + single[0]), single[1])
    assert ref.lonlat_to_pixel(*single) == (pytest.approx(10.5, abs=1e-6), pytest.approx(20.25, abs=1e-6))


def test_pixel_corner_convention(testdata: Path) -> None:
    # (0, 0) is the outer corner of the top-left pixel: the GeoTIFF origin from SOURCES.md
    ref = georef_from_geotiff(testdata / "satellite" / "spacenet6_rotterdam_pan_0p5m.tif")
    to_utm = Transformer.from_crs("EPSG:4326", "EPSG:32631", always_xy=True)
    east, north = to_utm.transform(*ref.pixel_to_lonlat(0, 0))
    assert (east, north) == (pytest.approx(593270.292, abs=1e-3), pytest.approx(5747657.416, abs=1e-3))
    east, north = to_utm.transform(*ref.pixel_to_lonlat(0.5, 0.5))  # centre of the first pixel
    assert (east, north) == (pytest.approx(593270.292 + 0.25, abs=1e-3), pytest.approx(5747657.416 - 0.25, abs=1e-3))


def test_dict_round_trip_is_json_safe(testdata: Path) -> None:
    ref = georef_from_geotiff(testdata / "satellite" / "webodm_drone_orthophoto_0p5m.tif")
    data = json.loads(json.dumps(ref.to_dict()))
    assert GeoReference.from_dict(data) == ref
    # a caller's extra keys (a stored record) are ignored
    assert GeoReference.from_dict({**data, "browser": {"m_per_px": 0.5}}) == ref
    with pytest.raises(ValueError, match="not a georeference record"):
        GeoReference.from_dict({"kind": "geotiff"})


@pytest.mark.parametrize("name", JPEGS)
def test_jpegs_have_no_georeference(testdata: Path, name: str) -> None:
    path = testdata / "satellite" / name
    with pytest.raises(MediaError, match=rf"^{name}: a JPEG image has no GeoTIFF tags$"):
        georef_from_geotiff(path)
    with pytest.raises(MediaError) as err:
        georeference(path, width=640, height=480)
    assert str(err.value) == f"{name} has no georeference: no GeoTIFF tags, world file, corners or control points"


@pytest.mark.parametrize("kind", ["zero_pixel_size", "unknown_crs", "text_named_tif", "empty"])
def test_broken_files_are_not_georeferenced(broken_images: dict[str, tuple[Path, str]], kind: str) -> None:
    path, message = broken_images[kind]
    with pytest.raises(MediaError) as err:
        # corners are given too: a broken file is reported, not silently georeferenced another way
        georeference(path, corners={"tl": (1, 1), "tr": (1, 2), "br": (0, 2)}, width=8, height=6)
    assert str(err.value).startswith(message)


def test_geotiff_without_crs_says_so(tmp_path: Path) -> None:
    path = write_geotiff(tmp_path / "nocrs.tif", Affine(0.5, 0, 593270, 0, -0.5, 5747657), crs=None)  # type: ignore[arg-type]
    with pytest.raises(MediaError, match=r"^nocrs\.tif has no georeference: GeoTIFF tags without a CRS, world file"):
        georeference(path, width=8, height=6)


# ---- world files -------------------------------------------------------------------------------------------


def _png_with_world_file(tmp_path: Path, lines: list[float]) -> tuple[Path, Path]:
    image = tmp_path / "map.png"
    image.write_bytes(png_bytes(200, 100))
    world = tmp_path / "map.pgw"
    world.write_text("\n".join(f"{v!r}" for v in lines) + "\n")
    return image, world


def test_world_file_refers_to_the_pixel_centre(tmp_path: Path) -> None:
    # given a world file whose top-left pixel CENTRE is at (593270.25, 5747657.25), 0.5 m pixels, UTM 31N
    image, world = _png_with_world_file(tmp_path, [0.5, 0.0, 0.0, -0.5, 593270.25, 5747657.25])

    # when read
    ref = georef_from_world_file(image, world, crs="EPSG:32631")

    # then pixel (0, 0), the outer corner, is half a pixel up and left of that centre
    to_utm = Transformer.from_crs("EPSG:4326", "EPSG:32631", always_xy=True)
    assert to_utm.transform(*ref.pixel_to_lonlat(0, 0)) == (
        pytest.approx(593270.0, abs=1e-4),
        pytest.approx(5747657.5, abs=1e-4),
    )
    assert to_utm.transform(*ref.pixel_to_lonlat(200, 100)) == (
        pytest.approx(593370.0, abs=1e-4),
        pytest.approx(5747607.5, abs=1e-4),
    )
    assert (ref.kind, ref.width, ref.height) == ("world_file", 200, 100)
    assert ref.gsd_m() == pytest.approx(0.5, rel=0.002)
    # and the same through georeference(), round trip included
    same = georeference(image, world_file=world, world_file_crs="EPSG:32631", width=200, height=100)
    assert same == ref
    x, y = same.lonlat_to_pixel(*same.pixel_to_lonlat(np.array([3.25, 150.0]), np.array([7.5, 99.0])))
    assert np.allclose(x, [3.25, 150.0], atol=1e-6) and np.allclose(y, [7.5, 99.0], atol=1e-6)


def test_rotated_world_file(tmp_path: Path) -> None:
    # given a world file with rotation terms (a 30 degree rotated 1 m grid)
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    image, world = _png_with_world_file(tmp_path, [c, s, s, -c, 500000.0, 5700000.0])
    ref = georef_from_world_file(image, world, crs="EPSG:32631")
    # then neighbouring pixels are 1 m apart along both axes and the round trip holds
    lon, lat = ref.pixel_to_lonlat(np.array([50.0, 51.0, 50.0]), np.array([50.0, 50.0, 51.0]))
    assert _metres(lon[0], lat[0], lon[1], lat[1]) == pytest.approx(1.0, rel=0.002)
    assert _metres(lon[0], lat[0], lon[2], lat[2]) == pytest.approx(1.0, rel=0.002)
    assert np.allclose(ref.lonlat_to_pixel(lon, lat), [[50, 51, 50], [50, 50, 51]], atol=1e-6)


def test_bad_world_files_are_refused(tmp_path: Path) -> None:
    image, world = _png_with_world_file(tmp_path, [0.5, 0.0, 0.0, -0.5, 593270.25])
    with pytest.raises(MediaError, match=r"^map\.pgw: not a readable world file .*six numbers"):
        georef_from_world_file(image, world, crs="EPSG:32631")
    image, world = _png_with_world_file(tmp_path, [0.0, 0.0, 0.0, -0.5, 593270.25, 5747657.25])
    with pytest.raises(MediaError, match=r"^map\.pgw: the world file gives a zero or non-finite pixel size$"):
        georef_from_world_file(image, world, crs="EPSG:32631")
    image, world = _png_with_world_file(tmp_path, [0.5, 0.0, 0.0, -0.5, 593270.25, 5747657.25])
    with pytest.raises(MediaError, match=r"^map\.pgw: the CRS 'EPSG:999999' given for the world file is not known$"):
        georef_from_world_file(image, world, crs="EPSG:999999")
    with pytest.raises(MediaError, match=r"^map\.pgw: a world file needs its CRS"):
        georeference(image, world_file=world, width=200, height=100)


# ---- corners -----------------------------------------------------------------------------------------------


def test_corners_reproduce_a_known_georeference(tmp_path: Path) -> None:
    # given the corners of a rotated world-file georeference
    c, s = math.cos(math.radians(20)), math.sin(math.radians(20))
    image, world = _png_with_world_file(tmp_path, [0.5 * c, 0.5 * s, 0.5 * s, -0.5 * c, 593270.0, 5747657.0])
    truth = georef_from_world_file(image, world, crs="EPSG:32631")
    corners = truth.corners()

    # when a georeference is built from all four, or from three, of them
    four = georef_from_corners(corners, width=200, height=100)
    three = georef_from_corners({k: corners[k] for k in ("tl", "tr", "bl")}, width=200, height=100)

    # then it places interior pixels within a centimetre of the truth
    x, y = np.meshgrid(np.linspace(0, 200, 9), np.linspace(0, 100, 5))
    lon, lat = truth.pixel_to_lonlat(x.ravel(), y.ravel())
    for ref in (four, three):
        lon2, lat2 = ref.pixel_to_lonlat(x.ravel(), y.ravel())
        assert max(_metres(a, b, c2, d) for a, b, c2, d in zip(lon, lat, lon2, lat2, strict=True)) < 0.01
        assert (ref.kind, ref.crs, ref.rms_m) == ("corners", "EPSG:32631", None)
    assert georeference(image, corners=corners, width=200, height=100) == four


def test_corners_need_three_valid_points() -> None:
    with pytest.raises(MediaError, match=r"^corners: give \(lat, lon\) for at least 3 of tl, tr, br, bl"):
        georef_from_corners({"tl": (57.48, 12.01), "br": (57.47, 12.02)}, width=100, height=100)
    with pytest.raises(MediaError, match=r"^corners tr: \(95\.0, 12\.0\) is not a WGS84 lat/lon$"):
        georef_from_corners({"tl": (57.48, 12.01), "tr": (95, 12), "br": (57.47, 12.02)}, width=100, height=100)


# ---- control points ----------------------------------------------------------------------------------------

# SOURCES.md: approximate footprint of the Särö frame from the affine fit (lat, lon)
SARO_FOOTPRINT = {
    "tl": (57.48434, 12.01107),
    "tr": (57.48333, 12.00869),
    "br": (57.48435, 12.00738),
    "bl": (57.48537, 12.00976),
}
SARO_CENTRE = (57.48435, 12.00922)


def test_saro_gcp_fits_match_the_published_rms(saro_gcps: list[tuple[float, float, float, float]]) -> None:
    # when the six surveyed ArUco corners are fitted both ways
    homography = georef_from_gcps(saro_gcps, width=1920, height=1080)
    affine_fit = georef_from_gcps(saro_gcps, width=1920, height=1080, model="affine")

    # then the RMS residuals are SOURCES.md's 0.18 m and 0.27 m, in the local UTM zone (33N at 12.009 E)
    assert homography.rms_m == pytest.approx(0.18, abs=0.03)
    assert affine_fit.rms_m == pytest.approx(0.27, abs=0.04)
    assert homography.crs == affine_fit.crs == "EPSG:32633"
    assert homography.gsd_m() == pytest.approx(0.11, abs=0.01) and affine_fit.gsd_m() == pytest.approx(0.11, abs=0.01)
    # the fit's residual is what independent re-measurement finds at the points
    lon, lat = homography.pixel_to_lonlat(*np.asarray(saro_gcps)[:, :2].T)
    distances = [_metres(lo, la, p[3], p[2]) for lo, la, p in zip(lon, lat, saro_gcps, strict=True)]
    assert math.sqrt(np.mean(np.square(distances))) == pytest.approx(homography.rms_m, rel=0.01)


def test_saro_frame_footprint(saro_gcps: list[tuple[float, float, float, float]]) -> None:
    homography = georef_from_gcps(saro_gcps, width=1920, height=1080)
    affine_fit = georef_from_gcps(saro_gcps, width=1920, height=1080, model="affine")
    # the affine footprint is SOURCES.md's (which was computed with an affine fit), to its rounding
    for key, (lat, lon) in SARO_FOOTPRINT.items():
        got_lat, got_lon = affine_fit.corners()[key]
        assert _metres(got_lon, got_lat, lon, lat) < 2.0
    lon, lat = affine_fit.pixel_to_lonlat(960, 540)
    assert _metres(lon, lat, SARO_CENTRE[1], SARO_CENTRE[0]) < 2.0
    # the homography also models the camera's tilt (see the car sizes below): it agrees near the control
    # points and moves the frame's centre by metres and its far corners by tens of metres
    lon, lat = homography.pixel_to_lonlat(960, 540)
    assert _metres(lon, lat, SARO_CENTRE[1], SARO_CENTRE[0]) < 10.0
    spread = [_metres(*homography.corners()[k][::-1], *affine_fit.corners()[k][::-1]) for k in SARO_FOOTPRINT]
    assert 5 < max(spread) < 40


def test_homography_explains_car_sizes_across_the_saro_frame(
    testdata: Path, saro_gcps: list[tuple[float, float, float, float]]
) -> None:
    # given the 608 annotated cars (oriented boxes) of the Särö clip
    boxes = []
    for label in sorted((testdata / "videos" / "saro_roundabout_labels").glob("frame_*.txt")):
        for line in label.read_text().splitlines():
            boxes.append(np.array(line.split()[1:], float).reshape(4, 2) * [1920, 1080])

    def car_lengths(ref: GeoReference) -> np.ndarray:
        pts = np.concatenate(boxes)
        lon, lat = ref.pixel_to_lonlat(pts[:, 0], pts[:, 1])
        lon, lat = lon.reshape(-1, 4), lat.reshape(-1, 4)
        sides = GEOD.inv(lon, lat, np.roll(lon, -1, axis=1), np.roll(lat, -1, axis=1))[2]
        return np.max(sides, axis=1)

    # then in metres the cars are about the same length all over the frame with the homography (the camera is
    # tilted: cars near the bottom are larger in pixels), and the affine fit makes them vary more
    homography = car_lengths(georef_from_gcps(saro_gcps, width=1920, height=1080))
    affine_fit = car_lengths(georef_from_gcps(saro_gcps, width=1920, height=1080, model="affine"))
    # (the boxes are drawn loosely: about 52 x 30 px, 5.6 x 3.3 m at the nominal 0.108 m/px)
    assert 4.5 < np.median(homography) < 7.5
    assert np.std(homography) < 0.7 * np.std(affine_fit)


def test_gcp_counts_and_geometry_are_checked(saro_gcps: list[tuple[float, float, float, float]]) -> None:
    with pytest.raises(MediaError, match=r"^control points: a affine fit needs at least 3 control points, got 2"):
        georef_from_gcps(saro_gcps[:2], width=1920, height=1080)
    with pytest.raises(MediaError, match=r"a homography fit needs at least 4 control points, got 3"):
        georef_from_gcps(saro_gcps[:3], width=1920, height=1080, model="homography")
    # three points are enough for "auto" (affine)
    assert georef_from_gcps(saro_gcps[::2], width=1920, height=1080).rms_m == pytest.approx(0, abs=1e-6)
    on_a_line = [(100.0 * i, 50.0 * i, 57.48 + 1e-4 * i, 12.0 + 2e-4 * i) for i in range(5)]
    with pytest.raises(MediaError, match=r"control points' pixel positions lie on one line"):
        georef_from_gcps(on_a_line, width=1920, height=1080)


def test_gcp_errors_name_the_image(testdata: Path) -> None:
    jpg = testdata / "satellite" / "opencv_aero1_oblique_aerial.jpg"
    on_a_line = [(100.0 * i, 50.0 * i, 57.48 + 1e-4 * i, 12.0 + 2e-4 * i) for i in range(5)]
    with pytest.raises(MediaError, match=rf"^{jpg.name}: the control points' pixel positions lie on one line"):
        georeference(jpg, gcps=on_a_line, width=640, height=480)


def test_georeference_prefers_tags_then_world_file_then_corners_then_gcps(
    testdata: Path, tmp_path: Path, saro_gcps: list[tuple[float, float, float, float]]
) -> None:
    tif = testdata / "satellite" / "webodm_drone_orthophoto_0p5m.tif"
    # GeoTIFF tags win over anything given
    assert georeference(tif, corners=SARO_FOOTPRINT, gcps=saro_gcps, width=212, height=212).kind == "geotiff"
    # a plain image: corners before control points, control points last
    jpg = testdata / "satellite" / "opencv_aero1_oblique_aerial.jpg"
    assert georeference(jpg, corners=SARO_FOOTPRINT, gcps=saro_gcps, width=640, height=480).kind == "corners"
    by_gcps = georeference(jpg, gcps=saro_gcps, width=1920, height=1080)
    assert (by_gcps.kind, by_gcps.rms_m) == ("gcps", pytest.approx(0.178, abs=0.005))


@pytest.mark.filterwarnings("ignore::rasterio.errors.NotGeoreferencedWarning")
def test_geotiff_with_embedded_control_points(tmp_path: Path) -> None:
    # given a GeoTIFF that carries control points (UTM 31N) instead of a geotransform
    truth = Affine(0.5, 0, 593270.0, 0, -0.5, 5747657.0)
    gcps = [GroundControlPoint(row, col, *(truth @ (col, row))) for col, row in [(0, 0), (40, 0), (40, 30), (0, 30)]]
    path = tmp_path / "gcps.tif"
    with rasterio.open(path, "w", driver="GTiff", width=40, height=30, count=1, dtype="uint8") as ds:
        ds.write(np.zeros((1, 30, 40), "uint8"))
        ds.gcps = (gcps, "EPSG:32631")

    ref = georef_from_geotiff(path)

    to_utm = Transformer.from_crs("EPSG:4326", "EPSG:32631", always_xy=True)
    assert ref.kind == "gcps" and ref.rms_m == pytest.approx(0, abs=1e-3)
    assert to_utm.transform(*ref.pixel_to_lonlat(20, 15)) == (
        pytest.approx(593280.0, abs=1e-3),
        pytest.approx(5747649.5, abs=1e-3),
    )
