"""Every task through the compile service: marks saved as annotators draw them, an item whose key,
options, format, template version and provenance are what the marks say."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from annotator.compiling.qa import get_template, registered_tasks
from annotator.compiling.services import item_compile
from annotator.models import Item, Mark
from tests.annotator.compiling.builders import north_up_georef
from tests.factories import MarkFactory, SatelliteImageFactory, SceneFactory

pytestmark = pytest.mark.django_db

T = Item.Task
F = Item.AnswerFormat


def _poly(x0: float, y0: float, x1: float, y1: float) -> dict[str, Any]:
    return {"type": "Polygon", "coordinates": [[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]]}


def _line(*points: tuple[float, float]) -> dict[str, Any]:
    return {"type": "LineString", "coordinates": [list(p) for p in points]}


def _point(x: float, y: float) -> dict[str, Any]:
    return {"type": "Point", "coordinates": [x, y]}


class Marks:
    """Marks of one scene by one annotator, on the scene's image."""

    def __init__(self, annotator: Any, georef: dict[str, Any] | None = None):
        image = SatelliteImageFactory(georef=georef)
        self.scene = SceneFactory(satellite_images=[image], annotators=[annotator])
        self.annotator = annotator

    def __call__(self, kind: str, geometry: dict[str, Any], label: str, **fields: Any) -> Mark:
        fields.setdefault("facts", {})
        return MarkFactory(scene=self.scene, author=self.annotator, kind=kind, geometry=geometry, label=label, **fields)


# Each case: the marks (in the order given to the service) and what the item must say.
Case = Callable[[Marks], tuple[list[Mark], dict[str, Any]]]


def target_visibility(m: Marks) -> tuple[list[Mark], dict[str, Any]]:
    return [m("polygon", _poly(10, 10, 40, 40), "pier", facts={"visible": False})], {"visible": False}


def scene_association(m: Marks) -> tuple[list[Mark], dict[str, Any]]:
    return [m("polygon", _poly(10, 10, 40, 40), "park", time_start=0.5, time_end=1.5)], {"segment_s": [0.5, 1.5]}


def zone_counting(m: Marks) -> tuple[list[Mark], dict[str, Any]]:
    lot = m("polygon", _poly(10, 10, 90, 60), "parking lot", time_start=1.0, time_end=None)
    cars = [m("point", _point(x, 30), "car", time_start=1.0, time_end=None) for x in (20, 40, 60, 150)]
    return [lot, *cars], {"answer": "3", "count_class": "car"}


def event_geolocalization(m: Marks) -> tuple[list[Mark], dict[str, Any]]:
    spot = m("point", _point(120, 40), "car", time_start=1.2, time_end=None, facts={"event": "the car turns around"})
    return [spot], {"event": "the car turns around"}


def trajectory_matching(m: Marks) -> tuple[list[Mark], dict[str, Any]]:
    bus = m("polyline", _line((20, 20), (90, 30), (150, 80)), "bus", vertex_times=[0.0, 1.0, 2.0], time_end=2.0)
    return [bus], {"interval_s": [0.0, 2.0]}


def temporal_grounding(m: Marks) -> tuple[list[Mark], dict[str, Any]]:
    tower = m("polygon", _poly(10, 10, 40, 40), "tower", time_start=0.2, facts={"first_seen_s": 1.35})
    return [tower], {"answer": "1.35"}


def relative_distance(m: Marks) -> tuple[list[Mark], dict[str, Any]]:
    van = m("polyline", _line((100, 10), (100, 70)), "van", vertex_times=[0.0, 2.0], time_end=2.0)
    stop = m("polygon", _poly(90, 80, 110, 95), "bus stop")
    # 70 px away at 0 s, 10 px at 2 s, due north: 778 m and 111 m on this image (11.1 m per px north-south)
    answer = "much closer (less than half the distance)"
    return [van, stop], {
        "answer": answer,
        "unit": "m",
        "distances": [778.32, 111.2],
        "ratio": pytest.approx(1 / 7, abs=1e-3),
    }


def relative_direction(m: Marks) -> tuple[list[Mark], dict[str, Any]]:
    car = m("point", _point(100, 10), "car", time_start=1.0, time_end=None)
    circle = m("polygon", _poly(90, 40, 110, 60), "roundabout")
    return [car, circle], {"answer": "north", "north": "true north"}


def occlusion_attribution(m: Marks) -> tuple[list[Mark], dict[str, Any]]:
    tall = m("polygon", _poly(10, 10, 40, 40), "building")
    low = m("polygon", _poly(50, 10, 80, 40), "road")
    tall.facts = {"occlusion": [{"other": low.id, "relation": "hides"}]}
    tall.save()
    return [tall, low], {"answer": "the building hides part of the road"}


def spatiotemporal_ordering(m: Marks) -> tuple[list[Mark], dict[str, Any]]:
    marks = [m("polygon", _poly(x, 10, x + 20, 30), label, time_start=t, time_end=None) for x, label, t in
             ((10, "bridge", 3.5), (50, "tower", 0.5), (90, "lake", 2.0))]  # fmt: skip
    return marks, {"answer": "the tower, then the lake, then the bridge"}


def region_interaction(m: Marks) -> tuple[list[Mark], dict[str, Any]]:
    cyclist = m("polyline", _line((10, 70), (190, 70)), "cyclist", vertex_times=[0.0, 2.0], time_end=2.0)
    park = m("polygon", _poly(80, 10, 120, 50), "park")  # 20 px from the path; limit 0.5 * 22.6 px
    return [cyclist, park], {"answer": "it stays away from the park", "closest_px": 20.0}


def region_reachability(m: Marks) -> tuple[list[Mark], dict[str, Any]]:
    truck = m("polyline", _line((10, 50), (40, 50)), "truck", vertex_times=[0.0, 1.0], time_end=1.0,
              facts={"future_action": "straight"})  # fmt: skip
    lot = m("polygon", _poly(150, 40, 180, 60), "parking lot")
    return [truck, lot], {"reaches": True}


CASES: dict[str, tuple[Case, str, int]] = {
    T.TARGET_VISIBILITY: (target_visibility, F.YES_NO, 2),
    T.SCENE_ASSOCIATION: (scene_association, F.MULTIPLE_CHOICE, 4),
    T.ZONE_COUNTING: (zone_counting, F.NUMBER, 0),
    T.EVENT_GEOLOCALIZATION: (event_geolocalization, F.MULTIPLE_CHOICE, 4),
    T.TRAJECTORY_MATCHING: (trajectory_matching, F.MULTIPLE_CHOICE, 4),
    T.TEMPORAL_GROUNDING: (temporal_grounding, F.TIMESTAMP, 0),
    T.RELATIVE_DISTANCE: (relative_distance, F.MULTIPLE_CHOICE, 5),
    T.RELATIVE_DIRECTION: (relative_direction, F.MULTIPLE_CHOICE, 8),
    T.OCCLUSION_ATTRIBUTION: (occlusion_attribution, F.MULTIPLE_CHOICE, 4),
    T.SPATIOTEMPORAL_ORDERING: (spatiotemporal_ordering, F.MULTIPLE_CHOICE, 6),
    T.REGION_INTERACTION: (region_interaction, F.MULTIPLE_CHOICE, 3),
    T.REGION_REACHABILITY: (region_reachability, F.YES_NO, 2),
}


def test_all_twelve_tasks_are_registered() -> None:
    assert registered_tasks() == sorted(T.values) and set(CASES) == set(T.values)


@pytest.mark.parametrize("task", sorted(CASES))
def test_each_task_compiles_through_the_service(annotator, task: str) -> None:
    # given marks drawn for the task on a georeferenced image
    case, answer_format, n_options = CASES[task]
    marks, expected = case(Marks(annotator, georef=north_up_georef()))

    # when compiled through the service
    item = Item.objects.get(id=item_compile(user=annotator, task=task, mark_ids=[m.id for m in marks], seed=5).id)

    # then the item has the task's format, option count, versioned template and a key from the marks
    template = get_template(task)
    assert (item.answer_format, len(item.options), item.template) == (answer_format, n_options, template.name)
    assert item.template == f"{task}.v{item.template.rsplit('.v', 1)[1]}"
    assert len(set(item.options)) == len(item.options)
    assert sorted(m.id for m in item.marks.all()) == sorted(m.id for m in marks)
    prov = item.provenance
    assert (prov["template"], prov["seed"]) == (template.name, 5)
    assert [s["id"] for s in prov["marks"]] == [m.id for m in marks]
    assert isinstance(prov["phrasing"], int)
    if answer_format == F.MULTIPLE_CHOICE:
        assert item.answer in item.options and prov["key_position"] == item.options.index(item.answer)
    if "candidates" in prov:
        truth = prov["candidates"][item.options.index(item.answer)]
        assert truth["source"] == "truth" and truth["letter"] == item.answer
    if answer_format == F.YES_NO:
        # the fact or the geometry, read through the polarity of the question
        truth = expected.pop("visible", expected.pop("reaches", None))
        assert item.answer == ("yes" if truth == (prov["polarity"] == "positive") else "no")
    for key, value in expected.items():
        assert (item.answer if key == "answer" else prov[key]) == value, key


def test_marks_fill_the_parts_in_the_order_given(annotator) -> None:
    # given two places that could each be the event (kinds leave the choice to the order)
    m = Marks(annotator)
    turn = m("point", _point(40, 30), "car", time_start=1.0, time_end=None, facts={"event": "the car turns"})
    stop = m("point", _point(160, 70), "van", time_start=1.0, time_end=None, facts={"event": "the van stops"})
    # when compiled in one order, then the other / then the first is the event and the second a decoy
    for first, second in ((turn, stop), (stop, turn)):
        item = item_compile(user=annotator, task=T.EVENT_GEOLOCALIZATION, mark_ids=[first.id, second.id], seed=1)
        by_source = {c["source"]: c["geometry"]["coordinates"] for c in item.provenance["candidates"]}
        assert by_source["truth"] == first.geometry["coordinates"]
        assert by_source[f"mark {second.id}"] == second.geometry["coordinates"]


def test_an_ellipse_is_the_target_and_a_polygon_the_region_whatever_the_order(annotator) -> None:
    # given a car (an ellipse: a target instance) and a pond drawn as a polygon south of it
    m = Marks(annotator)
    car = m("ellipse", {"type": "Ellipse", "center": [100, 10], "radii": [4, 3], "rotation": 0}, "car", time_end=None)
    pond = m("polygon", _poly(85, 50, 115, 70), "pond")
    # when compiled either way round / then the car is the target: it is north of the pond
    one = item_compile(user=annotator, task=T.RELATIVE_DIRECTION, mark_ids=[car.id, pond.id], seed=1)
    two = item_compile(user=annotator, task=T.RELATIVE_DIRECTION, mark_ids=[pond.id, car.id], seed=1)
    assert (one.answer, one.provenance["north"]) == ("north", "image up")
    assert "with north meaning image up" in one.question
    assert two.answer == "north"
