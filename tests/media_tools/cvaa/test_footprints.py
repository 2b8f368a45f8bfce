"""media_tools.cvaa.footprints: frame footprints from a homography, from georeferences, from telemetry."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest
from pyproj import Transformer

from media_tools.cvaa import (
    CameraModel,
    SiftLocator,
    box_iou,
    footprint_from_georefs,
    footprint_from_homography,
    footprint_from_telemetry,
    load_rgb,
    points_in_quad,
    quad_area,
    quad_bbox,
    quad_up_angle,
)
from media_tools.cvaa.footprints import ground_offsets
from media_tools.errors import MediaError
from media_tools.geo import GeoReference, georef_from_gcps, georef_from_geotiff, read_gcp_csv

SARO_GCPS = "videos/saro_roundabout_gcp_pixels_1080p.csv"
# The Särö frame's footprint corners as SOURCES.md gives them (lat, lon), "accurate to a few metres".
SARO_CORNERS = {
    "tl": (57.48434, 12.01107),
    "tr": (57.48333, 12.00869),
    "br": (57.48435, 12.00738),
    "bl": (57.48537, 12.00976),
}


def test_footprint_from_a_scale_and_shift_homography_is_the_hand_computed_corners() -> None:
    h = np.array([[2.0, 0, 10], [0, 2.0, 20], [0, 0, 1]])
    quad = footprint_from_homography(h, 100, 50)
    assert np.allclose(quad, [[10, 20], [210, 20], [210, 120], [10, 120]])


def test_footprint_from_a_perspective_homography_divides_by_w() -> None:
    # w = 1 + 0.001 x: the right edge (x = 100) shrinks by 1 / 1.1
    h = np.array([[1.0, 0, 0], [0, 1.0, 0], [0.001, 0, 1]])
    quad = footprint_from_homography(h, 100, 50)
    assert np.allclose(quad, [[0, 0], [100 / 1.1, 0], [100 / 1.1, 50 / 1.1], [0, 50]])


def test_a_homography_past_the_horizon_has_no_footprint() -> None:
    h = np.array([[1.0, 0, 0], [0, 1.0, 0], [-0.02, 0, 1]])  # w < 0 for x > 50
    with pytest.raises(MediaError, match="beyond the horizon"):
        footprint_from_homography(h, 100, 50)


def _north_up_ref(lat: float, lon: float, *, crs: str, gsd: float, size: int) -> GeoReference:
    """A synthetic north-up satellite image of `size` px at `gsd` m centred on (lat, lon)."""
    east, north = Transformer.from_crs("EPSG:4326", crs, always_xy=True).transform(lon, lat)
    half = size * gsd / 2
    matrix = ((gsd, 0.0, east - half), (0.0, -gsd, north + half), (0.0, 0.0, 1.0))
    return GeoReference("geotiff", crs, matrix, size, size)


def test_saro_footprint_from_its_control_point_fit_matches_the_published_corners(testdata: Path) -> None:
    # given the Särö frame's control-point fit and a north-up 0.5 m image around the roundabout; the fit
    # is affine (a homography without perspective) as in SOURCES.md: the six points span only the middle
    # of the frame, and a full homography through them swings the far corners by 10-36 m
    gcps = read_gcp_csv(testdata / SARO_GCPS)
    frame_ref = georef_from_gcps(gcps, width=1920, height=1080, model="affine")
    sat_ref = _north_up_ref(57.48435, 12.00922, crs="EPSG:32633", gsd=0.5, size=1000)

    # when the frame's footprint is computed on that image
    quad = footprint_from_georefs(frame_ref, sat_ref)

    # then each corner is within 1 m (2 px) of the corner SOURCES.md gives
    for got, key in zip(quad, ("tl", "tr", "br", "bl"), strict=True):
        lat, lon = SARO_CORNERS[key]
        want = np.array(sat_ref.lonlat_to_pixel(lon, lat))
        assert np.linalg.norm(got - want) < 2, key
    # and the frame's up points about 145° (toward SE), as SOURCES.md says
    assert abs(quad_up_angle(quad) - 145) < 5
    # and its area matches the ground sampling distance (0.11 m/px at 1080p) within 5 %
    ground_m2 = quad_area(quad) * 0.5**2
    assert abs(ground_m2 / (1920 * 1080 * 0.11**2) - 1) < 0.05


def test_nadir_camera_footprint_is_the_hand_computed_rectangle() -> None:
    # 90° wide, 2:1, 100 m up: 200 m x 100 m on the ground
    camera = CameraModel(hfov_deg=90, aspect=2)
    north_up = ground_offsets(camera, heading_deg=0, alt_m=100)
    assert np.allclose(north_up, [[-100, 50], [100, 50], [100, -50], [-100, -50]])
    # heading east: the frame's top-left lies north-east... of its centre, turned 90° clockwise
    east_up = ground_offsets(camera, heading_deg=90, alt_m=100)
    assert np.allclose(east_up, [[50, 100], [50, -100], [-50, -100], [-50, 100]])


def test_oblique_camera_footprint_widens_away_from_the_drone() -> None:
    # pitch -45°, 60° square field of view, 100 m up, looking north
    offsets = ground_offsets(CameraModel(hfov_deg=60, aspect=1, pitch_deg=-45), heading_deg=0, alt_m=100)
    t, s = math.tan(math.radians(30)), math.sqrt(0.5)
    # the bottom edge is seen 75° below the horizon; its corners sit sideways by tan(30°) of the ray length
    near = 100 / math.tan(math.radians(75))
    bl_east = -t * 100 / (s + t * s)
    assert np.allclose(offsets[3], [bl_east, near])
    far = 100 / math.tan(math.radians(15))
    assert np.isclose(offsets[0][1], far)
    assert abs(offsets[1][0] - offsets[0][0]) > abs(offsets[2][0] - offsets[3][0])


def test_a_camera_that_sees_the_horizon_has_no_footprint() -> None:
    with pytest.raises(MediaError, match="horizon"):
        ground_offsets(CameraModel(hfov_deg=60, aspect=1, pitch_deg=-20), heading_deg=0, alt_m=50)


def test_points_in_quad_either_winding() -> None:
    quad = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
    pts = np.array([[5, 5], [11, 5], [0, 0]])
    assert points_in_quad(pts, quad).tolist() == [True, False, True]
    assert points_in_quad(pts, quad[::-1]).tolist() == [True, False, True]


def test_brighton_telemetry_footprints_agree_with_feature_matching(testdata: Path) -> None:
    # given the Brighton Beach orthomosaic and three frames with their GPS, altitude and gimbal yaw;
    # the Phantom 3's 16:9 photos are about 81° wide (3.61 mm lens on a 6.17 mm wide sensor)
    folder = testdata / "brighton_beach"
    ortho = folder / "brighton_beach_ortho_utm15n.tif"
    sift = SiftLocator(load_rgb(ortho))
    ref = georef_from_geotiff(ortho)
    camera = CameraModel(hfov_deg=81.0, aspect=16 / 9)
    rows = {r["file"]: r for r in csv.DictReader((folder / "frames.csv").open())}
    for name in ("DJI_0018.JPG", "DJI_0025.JPG", "DJI_0032.JPG"):
        row = rows[name]
        # when the footprint is computed from telemetry alone
        quad = footprint_from_telemetry(
            lat=float(row["lat"]), lon=float(row["lon"]), alt_m=float(row["rel_alt_m"]),
            heading_deg=float(row["gimbal_yaw_deg"]), camera=camera, sat_ref=ref,
        )  # fmt: skip
        # then it agrees with the footprint SIFT finds from the pixels: boxes overlap, centres within 5 m
        found = sift.locate(load_rgb(folder / "frames" / name.replace(".JPG", ".jpg")))
        assert found.found, name
        assert box_iou(found.boxes[0], quad_bbox(quad))[0, 0] > 0.75, name
        assert np.linalg.norm(found.quads[0].mean(axis=0) - quad.mean(axis=0)) * ref.gsd_m() < 5, name
