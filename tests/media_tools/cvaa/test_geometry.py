"""media_tools.cvaa.geometry: a frame placed on a map by RootSIFT, mutual matches and MAGSAC++, with
implausible views refused."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from media_tools.cvaa import (
    CameraModel,
    GeometricLocator,
    box_iou,
    footprint_from_telemetry,
    load_rgb,
    quad_bbox,
)
from media_tools.cvaa import geometry as geometry_module
from media_tools.cvaa.footprints import frame_corners
from media_tools.cvaa.geometry import degenerate_reason, is_convex_view, project, verify
from media_tools.cvaa.matching import describe_frame
from media_tools.cvaa.rectify import oblique_rectifier
from media_tools.geo import georef_from_geotiff

BRIGHTON = "brighton_beach"
BRIGHTON_CAMERA = CameraModel(hfov_deg=81.0, aspect=16 / 9)


@pytest.fixture(scope="module")
def brighton_map(testdata: Path) -> np.ndarray:
    return load_rgb(testdata / BRIGHTON / "brighton_beach_ortho_utm15n.tif")


@pytest.fixture(scope="module")
def brighton_locator(brighton_map: np.ndarray) -> GeometricLocator:
    return GeometricLocator(brighton_map)


HALF = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])


def _view(image: np.ndarray, homography: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The frame a camera with frame -> map `homography` (corner-convention pixels, as placements use)
    would record: map pixels pulled through it (OpenCV samples at pixel centres, hence the half shifts)."""
    centred = np.linalg.inv(HALF) @ homography @ HALF
    return cv2.warpPerspective(image, centred, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)


def _true_homography(angle_deg: float, scale: float, centre: tuple[float, float], tilt: float) -> np.ndarray:
    """Frame (640 x 360) px -> map px: turned, scaled, centred at `centre`, with some perspective."""
    a = np.radians(angle_deg)
    to_centre = np.array([[1, 0, -320], [0, 1, -180], [0, 0, 1]], float)
    turn = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]]) * [[scale], [scale], [1]]
    persp = np.array([[1, 0, 0], [0, 1, 0], [tilt, 0, 1]], float)
    place = np.array([[1, 0, centre[0]], [0, 1, centre[1]], [0, 0, 1]], float)
    return place @ turn @ persp @ to_centre


@pytest.mark.parametrize(("angle", "scale", "tilt"), [(0, 1.2, 0.0), (135, 0.8, 0.0004), (260, 1.6, -0.0003)])
def test_a_warped_view_of_the_map_is_placed_within_a_few_pixels(
    brighton_map: np.ndarray, brighton_locator: GeometricLocator, angle: float, scale: float, tilt: float
) -> None:
    # given a 640 x 360 frame cut from the map through a known homography (turned, rescaled, tilted)
    truth = _true_homography(angle, scale, (900, 560), tilt)
    frame = _view(brighton_map, truth, (640, 360))

    # when the locator places it
    placed = brighton_locator.locate(frame)

    # then the footprint's corners are within 3 px of the true ones, confidently, with a small uncertainty
    assert placed is not None
    true_quad = project(truth, frame_corners(640, 360))
    assert np.max(np.linalg.norm(placed.quad - true_quad, axis=1)) < 3.0
    assert placed.source == "matching" and placed.confidence > 0.9
    assert placed.uncertainty_px < 3.0
    assert placed.details["inliers"] >= 50 and placed.details["scale"] in (1.0, 0.5, 0.25)
    assert json.loads(json.dumps(placed.to_dict()))["details"]["inliers"] == placed.details["inliers"]
    assert np.allclose(placed.project(np.array([[320, 180]])), project(truth, np.array([[320, 180]])), atol=2)


def test_near_restricts_matching_to_the_prior_and_still_places_the_frame(
    brighton_map: np.ndarray, brighton_locator: GeometricLocator
) -> None:
    truth = _true_homography(30, 1.0, (600, 500), 0.0)
    frame = _view(brighton_map, truth, (640, 360))
    true_quad = project(truth, frame_corners(640, 360))

    near = brighton_locator.locate(frame, near=true_quad + 40)
    far = brighton_locator.locate(frame, near=true_quad + np.array([1500.0, 0.0]))

    assert near is not None and np.max(np.linalg.norm(near.quad - true_quad, axis=1)) < 3.0
    assert far is None or far.confidence < 0.1


def test_a_frame_from_another_place_is_refused(testdata: Path, brighton_locator: GeometricLocator) -> None:
    # given photos of other places (an oblique town, Rotterdam from a satellite)
    others = [
        load_rgb(testdata / "satellite/opencv_aero1_oblique_aerial.jpg"),
        cv2.resize(load_rgb(testdata / "satellite/spacenet6_rotterdam_rgb8_1m_derived.tif"), (600, 600)),
    ]
    for frame in others:
        placed = brighton_locator.locate(frame)
        # then nothing is placed, or only with a confidence near 0
        assert placed is None or placed.confidence < 0.05


def test_a_refused_frame_is_described_once_and_once_per_tilt(
    testdata: Path, brighton_locator: GeometricLocator, described: list[tuple[int, ...]]
) -> None:
    # given a frame of another place: the approximate search, the exact one and both tilts all fail
    frame = cv2.resize(load_rgb(testdata / "satellite/spacenet6_rotterdam_rgb8_1m_derived.tif"), (600, 600))

    placed = brighton_locator.locate(frame)

    # then the frame was described once for both searches, and each tilt's rectified view once (a tilt whose
    # view would reach the horizon is not tried)
    assert placed is None
    assert described.count(frame.shape) == 1
    tilts = [t for t in brighton_locator.tilts if oblique_rectifier(600, 600, t, 70.0, side=960) is not None]
    assert tilts and len(described) == 1 + len(tilts)


def test_given_features_place_the_frame_as_described_ones_do_without_describing_it(
    brighton_map: np.ndarray, brighton_locator: GeometricLocator, described: list[tuple[int, ...]]
) -> None:
    truth = _true_homography(30, 1.0, (700, 500), 0.0)
    frame = _view(brighton_map, truth, (640, 360))
    own = describe_frame(frame)
    plain = brighton_locator.locate(frame)
    described.clear()  # counted from here: the frame's features are given

    given = brighton_locator.locate(frame, features=own)

    assert described == []
    assert plain is not None and given is not None
    assert np.allclose(given.quad, plain.quad) and given.details == plain.details
    with pytest.raises(ValueError, match="other settings"):
        brighton_locator.locate(frame, features=describe_frame(frame, side=480))
    with pytest.raises(ValueError, match="another frame"):
        brighton_locator.locate(frame[:200], features=own)


def test_the_photo_at_the_maps_edge_is_placed_by_one_exact_search_at_the_scale_that_verifies(
    testdata: Path, brighton_locator: GeometricLocator, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given Brighton photo 1, at the map's edge: the approximate search verifies nothing there
    folder = testdata / BRIGHTON
    ref = georef_from_geotiff(folder / "brighton_beach_ortho_utm15n.tif")
    with (folder / "frames.csv").open(newline="") as fh:
        row = list(csv.DictReader(fh))[1]
    truth = footprint_from_telemetry(
        lat=float(row["lat"]), lon=float(row["lon"]), alt_m=float(row["rel_alt_m"]),
        heading_deg=float(row["gimbal_yaw_deg"]), camera=BRIGHTON_CAMERA, sat_ref=ref,
    )  # fmt: skip
    frame = load_rgb(folder / "frames" / row["file"].replace(".JPG", ".jpg"))
    searches: list[tuple[int, bool, bool]] = []  # (map features, exact, through an index)
    real = geometry_module.mutual_matches

    def recorded(a: np.ndarray, b: np.ndarray, **kw: Any) -> Any:
        searches.append((len(b), bool(kw.get("exact")), kw.get("index") is not None and not kw.get("exact")))
        return real(a, b, **kw)

    monkeypatch.setattr(geometry_module, "mutual_matches", recorded)

    placed = brighton_locator.locate(frame)

    # then it is placed where its telemetry says, by the exact pass
    assert placed is not None and placed.details.get("exact_search") is True
    assert box_iou(placed.box, quad_bbox(truth)[None])[0, 0] >= 0.5
    # the coarsest scale (a few hundred features) has no index: the first pass searched it exactly already, so
    # the exact pass searched only the finer scales, finest first, and stopped at the first that verified
    sizes = [len(f.descriptors) for _, f in brighton_locator.levels]
    assert brighton_locator.indexes[-1] is None and all(i is not None for i in brighton_locator.indexes[:-1])
    assert searches[: len(sizes)] == [
        (n, False, i is not None) for n, i in zip(sizes, brighton_locator.indexes, strict=True)
    ]
    exact_pass = searches[len(sizes) :]
    assert exact_pass == [(n, True, False) for n in sizes[: len(exact_pass)]]
    assert sizes.index(exact_pass[-1][0]) == [1.0, 0.5, 0.25].index(placed.details["scale"])


def test_a_folding_or_mirrored_homography_is_not_a_view() -> None:
    spread = np.random.default_rng(0).uniform([0, 0], [640, 360], size=(50, 2))
    mirror = np.diag([-1.0, 1.0, 1.0])
    fold = np.array([[1.0, 0, 0], [0, 1.0, 0], [-0.0025, 0, 1]])  # w crosses 0 inside the frame
    shear = np.array([[1.0, 9.0, 0], [0, 1.0, 0], [0, 0, 1]])
    assert "folds" in degenerate_reason(mirror, (640, 360), spread)
    assert "horizon" in degenerate_reason(fold, (640, 360), spread)
    assert "shear" in degenerate_reason(shear, (640, 360), spread)
    assert degenerate_reason(np.eye(3), (640, 360), spread) == ""
    # a bow-tie: TR and BR swapped
    assert not is_convex_view(np.array([[0, 0], [10, 10], [10, 0], [0, 10]], float))


def test_inliers_on_a_line_are_refused_although_they_fit() -> None:
    # given 60 exact matches, all on one line of the frame (a road edge): a whole family of homographies
    # fits them, the true one among them
    x = np.linspace(10, 630, 60)
    src = np.column_stack([x, 0.3 * x + 40])
    dst = src * 1.5 + [100, 50]

    # then even the true mapping is refused on the inliers' shape, and the fit refuses whatever it finds
    assert "line" in degenerate_reason(np.diag([1.5, 1.5, 1.0]), (640, 360), src)
    found, reason = verify(src, dst, (640, 360), threshold_px=2.0)
    assert found is None and reason


def test_inliers_bunched_in_one_corner_are_refused() -> None:
    rng = np.random.default_rng(1)
    src = rng.uniform([0, 0], [40, 30], size=(60, 2))
    dst = src * 1.5 + [100, 50]

    found, reason = verify(src, dst, (640, 360), threshold_px=2.0)

    assert found is None and reason


@pytest.mark.parametrize("rows", [(6, 9, 12, 15)])
def test_brighton_photos_are_placed_at_iou_above_half(
    testdata: Path, brighton_locator: GeometricLocator, rows: tuple[int, ...]
) -> None:
    # given real nadir photos and their GPS/altitude/gimbal-yaw footprints on the same flight's orthomosaic
    folder = testdata / BRIGHTON
    ref = georef_from_geotiff(folder / "brighton_beach_ortho_utm15n.tif")
    with (folder / "frames.csv").open(newline="") as fh:
        table = list(csv.DictReader(fh))
    for i in rows:
        row = table[i]
        truth = footprint_from_telemetry(
            lat=float(row["lat"]), lon=float(row["lon"]), alt_m=float(row["rel_alt_m"]),
            heading_deg=float(row["gimbal_yaw_deg"]), camera=BRIGHTON_CAMERA, sat_ref=ref,
        )  # fmt: skip
        frame = load_rgb(folder / "frames" / row["file"].replace(".JPG", ".jpg"))

        # when each is placed by geometry
        placed = brighton_locator.locate(frame)

        # then its box overlaps the telemetry footprint's box at IoU >= 0.5, with a confidence that says so
        assert placed is not None, row["file"]
        assert box_iou(placed.box, quad_bbox(truth)[None])[0, 0] >= 0.5, row["file"]
        assert placed.confidence >= 0.5
