"""Perception templates with hand-built marks: Target Visibility, Scene Association, Zone Counting."""

from __future__ import annotations

import pytest

from annotator.compiling.distractors import REGION_MAX_IOU
from annotator.compiling.qa import get_template
from annotator.compiling.spatial import iou
from annotator.marking.geometry import region_shape
from annotator.models import Item
from tests.annotator.compiling.builders import box_region, compile_item, ellipse, key_of, point, refusal

T = Item.Task


# ---- Target Visibility --------------------------------------------------------------------


@pytest.mark.parametrize("visible", [True, False])
def test_visibility_key_is_the_fact_and_the_alternate_asks_the_other_way(visible: bool) -> None:
    region = box_region(10, 10, 40, 40, label="water tower", facts={"visible": visible})
    for seed in range(8):
        item = compile_item(T.TARGET_VISIBILITY, [region], seed)
        assert item.provenance["polarity"] == "positive"
        assert item.answer == ("yes" if visible else "no")
        assert "water tower" in item.question and "labelled" not in item.question
        # the alternate asks the negative way and has the opposite key for the same truth
        assert item.alternate.provenance["polarity"] == "negative"
        assert item.alternate.answer != item.answer and key_of(item.alternate) is visible
        assert item.provenance["alternate"]["question"] == item.alternate.question


def test_visibility_check_lists_the_missing_fact() -> None:
    template = get_template(T.TARGET_VISIBILITY)
    region = box_region(10, 10, 40, 40, label="pier")
    assert [(e.field, str(e)) for e in template.check([region])] == [
        ("facts.visible", "set the fact 'visible' on the pier: yes or no: is it seen anywhere in the drone video?")
    ]
    region.facts = {"visible": True}
    assert template.check([region]) == []
    assert [e.field for e in template.check([point(5, 5)])] == ["marks"]


# ---- Scene Association --------------------------------------------------------------------


def test_scene_association_draws_the_truth_and_three_regions_that_barely_overlap() -> None:
    park = box_region(10, 10, 40, 40, label="park", time_start=2.0, time_end=5.5)
    item = compile_item(T.SCENE_ASSOCIATION, [park], seed=3)
    assert item.options == ["A", "B", "C", "D"]
    cands = item.provenance["candidates"]
    truth = cands[item.options.index(item.answer)]
    assert truth["source"] == "truth" and truth["geometry"] == park.geometry
    shapes = [region_shape(c["geometry"]["type"].lower(), c["geometry"]) for c in cands]
    assert all(iou(a, b) < REGION_MAX_IOU for i, a in enumerate(shapes) for b in shapes[i + 1 :])
    assert "2.0 s" in item.question and "5.5 s" in item.question
    assert "park" not in item.question  # the label would point at the answer among unlike decoys
    assert item.provenance["segment_s"] == [2.0, 5.5]


def test_scene_association_uses_decoy_regions() -> None:
    pond = box_region(30, 30, 55, 50, label="pond", time_start=0, time_end=3)
    lake = box_region(130, 40, 170, 62, label="lake")
    item = compile_item(T.SCENE_ASSOCIATION, [pond, lake], seed=1)
    sources = [c["source"] for c in item.provenance["candidates"]]
    assert sorted(sources) == sorted(["truth", f"mark {lake.id}", "moved", "moved"])
    assert {c["geometry"]["type"] for c in item.provenance["candidates"]} == {"Polygon"}


def test_an_ellipse_is_a_target_instance_never_a_region() -> None:
    # given an ellipse (a target instance, e.g. a car) drawn where a region would go
    pond = ellipse(40, 40, 15, 10, label="pond", time_start=0, time_end=3)
    # then no region task takes it
    assert refusal(T.SCENE_ASSOCIATION, [pond]) == (
        "marks",
        "Scene Association needs a region (polygon) whose time interval is the video segment; optionally up to 3 "
        "other regions of the same image as wrong options; got an ellipse",
    )
    assert refusal(T.TARGET_VISIBILITY, [pond])[1] == "Target Visibility needs one region (polygon); got an ellipse"


def test_scene_association_needs_a_segment_and_a_seen_region() -> None:
    instant = box_region(10, 10, 40, 40, label="park", time_start=2.0)
    assert refusal(T.SCENE_ASSOCIATION, [instant]) == (
        "time_end",
        "give the park the video segment it is seen in: a start and an end time",
    )
    unseen = box_region(10, 10, 40, 40, label="park", time_start=0, time_end=2, facts={"visible": False})
    field, message = refusal(T.SCENE_ASSOCIATION, [unseen])
    assert field == "facts.visible" and "never seen" in message


# ---- Zone Counting ------------------------------------------------------------------------


def _lot(**facts: object):  # type: ignore[no-untyped-def]
    return box_region(10, 10, 90, 60, label="parking lot", time_start=4.0, facts=dict(facts))


def test_counts_instance_marks_of_the_class_inside_the_region_at_its_time() -> None:
    lot = _lot(count_class="car")
    inside = [
        point(20, 20, time_start=4.0),
        point(30, 30, time_start=4.4),
        ellipse(50, 40, 4, 3, time_start=3.0, time_end=5.0),
    ]
    outside = point(150, 30, time_start=4.0)
    late = point(40, 20, time_start=6.0)
    bus = point(60, 20, label="bus", time_start=4.0)
    item = compile_item(T.ZONE_COUNTING, [lot, *inside, outside, late, bus], seed=2)
    assert (item.answer, item.options, item.answer_format) == ("3", [], "number")
    assert item.provenance["counted"] == [m.id for m in inside]
    assert item.provenance["excluded"] == {
        str(outside.id): "outside the region",
        str(late.id): "not marked at 4.0 s",
        str(bus.id): "labelled bus",
    }
    assert "cars" in item.question and "parking lot" in item.question and "4.0 s" in item.question


@pytest.mark.parametrize(
    ("marks", "answer"),
    [
        (lambda: [_lot(count_class="car", count=0)], "0"),  # zero from the fact
        (lambda: [_lot(), point(150, 30, time_start=4.0)], "0"),  # zero from marks: none inside
        (lambda: [_lot(count_class="pedestrian", count=7)], "7"),
    ],
)
def test_zero_and_fact_counts(marks, answer: str) -> None:  # type: ignore[no-untyped-def]
    assert compile_item(T.ZONE_COUNTING, marks()).answer == answer


def test_count_refusals_say_what_to_fix() -> None:
    assert refusal(T.ZONE_COUNTING, [_lot(count=3)]) == (
        "facts.count_class",
        "set the fact 'count_class' on the parking lot: the class to count, e.g. 'car' (not needed when the "
        "instance marks share a label)",
    )
    assert refusal(T.ZONE_COUNTING, [_lot(count_class="car")])[0] == "facts.count"
    assert refusal(T.ZONE_COUNTING, [_lot(count_class="car", count=2.5)]) == (
        "facts.count",
        "the fact 'count' on the parking lot must be a whole number, not 2.5",
    )
    mixed = [_lot(), point(20, 20, time_start=4.0), point(30, 20, label="bus", time_start=4.0)]
    assert refusal(T.ZONE_COUNTING, mixed)[0] == "facts.count_class"
    disagree = [_lot(count=5), point(20, 20, time_start=4.0)]
    assert refusal(T.ZONE_COUNTING, disagree) == (
        "facts.count",
        "the fact 'count' on the parking lot says 5 but 1 marked car is inside it at 4.0 s; correct the fact or "
        "the marks",
    )
