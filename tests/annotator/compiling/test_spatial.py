"""annotator.compiling.spatial: bearings from true north (or image up), compass sectors and their
borders, distances in metres or pixels, overlap."""

from __future__ import annotations

import math

import pytest
from pyproj import Geod
from shapely.geometry import box

from annotator.compiling.errors import TemplateError
from annotator.compiling.spatial import (
    SECTORS,
    Frame,
    bearing_deg,
    border_margin_deg,
    distance_to_region,
    frame_of,
    ground_distance,
    iou,
    sector_of,
)
from media_tools.geo import GeoReference
from tests.annotator.compiling import builders as b

IMAGE_UP = Frame(None)


def _frame(georef: dict) -> Frame:
    return Frame(GeoReference.from_dict(georef))


@pytest.mark.parametrize(
    ("target", "expected"),
    [((100, 0), 0.0), ((150, 50), 90.0), ((100, 100), 180.0), ((50, 50), 270.0), ((150, 0), 45.0)],
)
def test_without_georeference_image_up_is_north(target: tuple[float, float], expected: float) -> None:
    # given no georeference / when the bearing from the image centre is taken / then up is 0, right 90
    assert bearing_deg(IMAGE_UP, (100, 50), target) == pytest.approx(expected)


def test_north_up_georeference_gives_geodesic_bearings() -> None:
    # given a north-up image: straight up is true north and straight right is east
    frame = _frame(b.north_up_georef())
    assert bearing_deg(frame, (100, 50), (100, 10)) == pytest.approx(0.0, abs=0.05)
    assert bearing_deg(frame, (100, 50), (180, 50)) == pytest.approx(90.0, abs=0.05)
    # and a diagonal in pixels is not 45 degrees on the ground: the pixels are not square
    # (0.02 deg of longitude over 200 px vs 0.01 deg of latitude over 100 px at 48 N)
    diagonal = bearing_deg(frame, (100, 50), (140, 10))
    assert diagonal == pytest.approx(math.degrees(math.atan2(0.02 / 200 * 0.669, 0.01 / 100)), abs=0.5)
    assert 30 < diagonal < 38


def test_rotated_image_measures_from_true_north_not_image_up() -> None:
    # given an image whose up is east / when the target is straight up from the centre
    frame = _frame(b.east_up_georef())
    up = bearing_deg(frame, (100, 50), (100, 10))
    # then it is east by the georeference, though it would be north by image up
    assert up == pytest.approx(90.0, abs=0.2)
    assert sector_of(up) == "east"
    assert sector_of(bearing_deg(IMAGE_UP, (100, 50), (100, 10))) == "north"


@pytest.mark.parametrize(
    ("bearing", "sector"),
    [
        (0.0, "north"),
        (22.4999, "north"),
        (22.5, "north-east"),  # a border belongs to the sector clockwise of it
        (67.5, "east"),
        (337.4999, "north-west"),
        (337.5, "north"),
        (359.99, "north"),
        (180.0, "south"),
        (202.5, "south-west"),
        (-45.0, "north-west"),
        (405.0, "north-east"),
    ],
)
def test_sector_of_with_borders(bearing: float, sector: str) -> None:
    assert sector_of(bearing) == sector


def test_sectors_are_eight_and_margins_measure_from_borders() -> None:
    assert len(SECTORS) == 8 and len(set(SECTORS)) == 8
    assert border_margin_deg(0.0) == pytest.approx(22.5)
    assert border_margin_deg(22.5) == pytest.approx(0.0)
    assert border_margin_deg(30.0) == pytest.approx(7.5)


def test_distances_in_pixels_and_metres() -> None:
    assert ground_distance(IMAGE_UP, (0, 0), (30, 40)) == pytest.approx(50.0)
    # 100 px across the north-up image: from 11.005 E to 11.015 E along 48.005 N, on the ellipsoid
    metres = ground_distance(_frame(b.north_up_georef()), (50, 50), (150, 50))
    _, _, expected = Geod(ellps="WGS84").inv(11.005, 48.005, 11.015, 48.005)
    assert metres == pytest.approx(expected, abs=0.5)
    assert 740 < metres < 750


def test_distance_to_region_is_zero_inside_and_to_the_nearest_edge_outside() -> None:
    square = box(10, 10, 20, 20)
    assert distance_to_region(IMAGE_UP, (15, 15), square) == 0.0
    assert distance_to_region(IMAGE_UP, (15, 30), square) == pytest.approx(10.0)
    assert distance_to_region(IMAGE_UP, (23, 24), square) == pytest.approx(5.0)


def test_iou() -> None:
    assert iou(box(0, 0, 10, 10), box(5, 0, 15, 10)) == pytest.approx(50 / 150)
    assert iou(box(0, 0, 10, 10), box(20, 20, 30, 30)) == 0.0
    assert iou(box(0, 0, 10, 10), box(0, 0, 10, 10)) == 1.0


def test_unreadable_georeference_is_refused_with_the_image_named() -> None:
    region = b.box_region(10, 10, 20, 20, image=b.image(georef={"kind": "corners"}))
    with pytest.raises(TemplateError) as err:
        frame_of(region)
    assert err.value.field == "satellite_image"
    assert "run its georeference job again" in str(err.value)
