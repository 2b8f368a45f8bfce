"""Relation templates with hand-built marks: Relative Distance, Relative Direction, Occlusion
Attribution."""

from __future__ import annotations

import pytest

from annotator.compiling.qa.relative_distance import GRADES, MUCH_RATIO, SAME_RATIO, grade
from annotator.compiling.spatial import SECTORS
from annotator.models import Item
from tests.annotator.compiling.builders import (
    box_region,
    compile_item,
    east_up_georef,
    ellipse,
    image,
    north_up_georef,
    point,
    refusal,
    track,
)

T = Item.Task
MUCH_CLOSER, CLOSER, SAME, FARTHER, MUCH_FARTHER = GRADES


# ---- Relative Distance --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("d1", "d2", "expected"),
    [
        (100, 10, MUCH_CLOSER),
        (100, 50, CLOSER),  # exactly half: the milder grade
        (100, 79.9, CLOSER),
        (100, 80, SAME),  # exactly 1 / 1.25
        (100, 125, SAME),  # exactly 1.25
        (100, 125.1, FARTHER),
        (100, 200, FARTHER),  # exactly twice
        (100, 200.1, MUCH_FARTHER),
        (0, 0, SAME),  # inside the region both times
        (0, 5, MUCH_FARTHER),  # leaves the region
        (5, 0, MUCH_CLOSER),  # enters it
    ],
)
def test_grade_bands(d1: float, d2: float, expected: str) -> None:
    assert (SAME_RATIO, MUCH_RATIO) == (1.25, 2.0)
    assert grade(d1, d2) == expected


def _bus_stop(**kw: object):  # type: ignore[no-untyped-def]
    return box_region(90, 80, 110, 95, label="bus stop", **kw)


def test_distance_change_from_the_interpolated_track() -> None:
    # given a van driving south towards a bus stop: 70 px away at 0 s, 10 px at 6 s
    van = track([(100, 10), (100, 40), (100, 70)], [0.0, 3.0, 6.0], label="van")
    item = compile_item(T.RELATIVE_DISTANCE, [van, _bus_stop()], seed=1)
    assert item.answer == MUCH_CLOSER and sorted(item.options) == sorted(GRADES)
    assert item.provenance["distances"] == [70.0, 10.0] and item.provenance["unit"] == "px"
    # when the times are set by facts: at 1.5 s (55 px) and 4.5 s (25 px) -> ratio 0.45
    van.facts = {"t1_s": 1.5, "t2_s": 4.5}
    item = compile_item(T.RELATIVE_DISTANCE, [van, _bus_stop()], seed=1)
    assert item.provenance["positions_px"] == [[100.0, 25.0], [100.0, 55.0]]
    assert item.provenance["distances"] == [55.0, 25.0] and item.answer == MUCH_CLOSER
    assert "1.5 s" in item.question and "4.5 s" in item.question


def test_distance_in_metres_with_a_georeference() -> None:
    van = track([(100, 10), (100, 70)], [0.0, 6.0], label="van")
    stop = _bus_stop(image=image(georef=north_up_georef()))
    item = compile_item(T.RELATIVE_DISTANCE, [van, stop], seed=1)
    assert item.provenance["unit"] == "m"
    assert item.provenance["distances"][0] == pytest.approx(70 * 1111.9 / 100, rel=0.01)


def test_distance_refusals() -> None:
    untimed = track([(100, 10), (100, 70)], label="van")
    assert refusal(T.RELATIVE_DISTANCE, [untimed, _bus_stop()])[0] == "vertex_times"
    late = track([(100, 10), (100, 70)], [0.0, 6.0], label="van", facts={"t2_s": 9.0})
    assert refusal(T.RELATIVE_DISTANCE, [late, _bus_stop()]) == (
        "facts.t2_s",
        "9.0 s is outside the trajectory of the van (0.0 s to 6.0 s); set 't2_s' within it",
    )
    backwards = track([(100, 10), (100, 70)], [0.0, 6.0], label="van", facts={"t1_s": 4.0, "t2_s": 2.0})
    assert refusal(T.RELATIVE_DISTANCE, [backwards, _bus_stop()])[0] == "facts.t2_s"
    assert refusal(T.RELATIVE_DISTANCE, [_bus_stop(), point(5, 5)])[0] == "marks"


# ---- Relative Direction -------------------------------------------------------------------


def _roundabout(**kw: object):  # type: ignore[no-untyped-def]
    return box_region(90, 40, 110, 60, label="roundabout", **kw)  # centroid (100, 50)


def test_direction_without_georeference_says_image_up() -> None:
    item = compile_item(T.RELATIVE_DIRECTION, [point(160, 50, time_start=3.0), _roundabout()], seed=2)
    assert item.answer == "east" and sorted(item.options) == sorted(SECTORS)
    assert item.provenance["north"] == "image up" and item.provenance["bearing_deg"] == 90.0
    assert "with north meaning image up" in item.question and "true north" not in item.question


def test_direction_with_a_rotated_georeference_uses_true_north() -> None:
    # given an image whose up is east: a car straight above the roundabout is east of it
    rotated = image(georef=east_up_georef())
    item = compile_item(T.RELATIVE_DIRECTION, [point(100, 5, image=rotated), _roundabout(image=rotated)], seed=2)
    assert item.answer == "east" and item.provenance["north"] == "true north"
    assert "with north meaning true north" in item.question
    assert item.provenance["bearing_deg"] == pytest.approx(90.0, abs=0.5)


def test_target_on_a_sector_border_goes_clockwise() -> None:
    # given a car at a bearing of exactly 22.5 degrees from the centroid (the north / north-east border)
    region = box_region(140, 140, 160, 160, label="roundabout", image=image(width=400, height=300))
    car = point(150 + 41.4213562373095, 50, image=region.satellite_image)
    item = compile_item(T.RELATIVE_DIRECTION, [car, region])
    assert item.provenance["bearing_deg"] == 22.5 and item.provenance["border_margin_deg"] == 0.0
    assert item.answer == "north-east"


def test_direction_of_a_trajectory_at_a_time() -> None:
    # given a car driving west above the roundabout, asked about at 2 s (x = 160 - 30 * 2 = 100)
    car = track([(160, 10), (40, 10)], [0.0, 4.0], label="car", facts={"at_s": 2.0})
    item = compile_item(T.RELATIVE_DIRECTION, [car, _roundabout()])
    assert item.provenance["target_px"] == [100.0, 10.0] and item.answer == "north"
    car.facts = {"at_s": 3.5}  # x = 55, y = 10: bearing 311.6 -> north-west
    assert compile_item(T.RELATIVE_DIRECTION, [car, _roundabout()]).answer == "north-west"
    car.facts = {"at_s": 5.0}
    assert refusal(T.RELATIVE_DIRECTION, [car, _roundabout()]) == (
        "facts.at_s",
        "5.0 s is outside the trajectory of the car (0.0 s to 4.0 s); set 'at_s' within it",
    )


def test_target_inside_the_region_has_no_direction() -> None:
    assert refusal(T.RELATIVE_DIRECTION, [ellipse(100, 50, 3, 2, time_start=1.0), _roundabout()]) == (
        "marks",
        "at 1.0 s the car is inside the roundabout, so it has no direction from it; ask about a time when it is "
        "outside",
    )


# ---- Occlusion Attribution ----------------------------------------------------------------


def _pair():  # type: ignore[no-untyped-def]
    return box_region(10, 10, 40, 40, label="building"), box_region(50, 10, 80, 40, label="road")


@pytest.mark.parametrize(
    ("on_first", "relation", "answer"),
    [
        (True, "hides", "the building hides part of the road"),
        (True, "hidden_by", "the road hides part of the building"),
        (False, "hides", "the road hides part of the building"),  # stated on the road: read from its side
        (False, "mutual", "each hides part of the other at some point"),
        (True, "none", "neither hides the other"),
    ],
)
def test_occlusion_relation_from_either_region(on_first: bool, relation: str, answer: str) -> None:
    building, road = _pair()
    carrier, other = (building, road) if on_first else (road, building)
    carrier.facts = {"occlusion": [{"other": other.id, "relation": relation}]}
    item = compile_item(T.OCCLUSION_ATTRIBUTION, [building, road], seed=3)
    assert item.answer == answer and len(item.options) == 4 and len(set(item.options)) == 4
    assert "building" in item.question and "road" in item.question


def test_occlusion_refusals() -> None:
    building, road = _pair()
    assert refusal(T.OCCLUSION_ATTRIBUTION, [building, road])[0] == "facts.occlusion"
    building.facts = {"occlusion": [{"other": 123456, "relation": "hides"}]}  # about another region only
    field, message = refusal(T.OCCLUSION_ATTRIBUTION, [building, road])
    assert (field, message.split(":")[0]) == (
        "facts.occlusion",
        "set the fact 'occlusion' on the building or the road (a relation to the other one)",
    )
    building.facts = {"occlusion": {"other": road.id, "relation": "hides"}}  # one relation, not in a list
    assert refusal(T.OCCLUSION_ATTRIBUTION, [building, road])[1].startswith(
        "the fact 'occlusion' on the building should be a list of relations"
    )
    building.facts = {"occlusion": [{"other": road.id, "relation": "hides"}]}
    road.facts = {"occlusion": [{"other": building.id, "relation": "hides"}]}
    assert refusal(T.OCCLUSION_ATTRIBUTION, [building, road]) == (
        "facts.occlusion",
        "the 'occlusion' facts of the building and the road disagree; correct one of them",
    )
    road.facts = {"occlusion": [{"other": building.id, "relation": "hidden_by"}]}  # agrees
    assert compile_item(T.OCCLUSION_ATTRIBUTION, [building, road]).answer == "the building hides part of the road"


def test_two_regions_with_one_label_are_numbered() -> None:
    a, b = box_region(10, 10, 40, 40, label="building"), box_region(50, 10, 80, 40, label="building")
    a.facts = {"occlusion": [{"other": b.id, "relation": "hides"}]}
    item = compile_item(T.OCCLUSION_ATTRIBUTION, [a, b])
    assert item.answer == "the building 1 hides part of the building 2"
    assert item.provenance["names"] == {str(a.id): "building 1", str(b.id): "building 2"}
