"""Reasoning templates with hand-built marks: Spatiotemporal Ordering, Region Interaction,
Region Reachability."""

from __future__ import annotations

import pytest

from annotator.compiling.qa.region_interaction import PASS_BY_SHARE
from annotator.models import Item
from tests.annotator.compiling.builders import box_region, compile_item, ellipse, key_of, point, refusal, track

T = Item.Task


# ---- Spatiotemporal Ordering --------------------------------------------------------------


def _three(t_bridge: float, t_tower: float, t_lake: float, **facts: dict):  # type: ignore[no-untyped-def]
    return [
        box_region(10, 10, 30, 30, label="bridge", time_start=t_bridge, facts=facts.get("bridge", {})),
        box_region(50, 10, 70, 30, label="tower", time_start=t_tower, facts=facts.get("tower", {})),
        box_region(90, 10, 110, 30, label="lake", time_start=t_lake, facts=facts.get("lake", {})),
    ]


def test_order_of_first_sightings_is_the_key_among_all_six() -> None:
    item = compile_item(T.SPATIOTEMPORAL_ORDERING, _three(5.0, 1.0, 3.0), seed=4)
    assert item.answer == "the tower, then the lake, then the bridge"
    assert len(item.options) == 6 and len(set(item.options)) == 6
    assert item.provenance["first_seen_s"] == {"bridge": 5.0, "tower": 1.0, "lake": 3.0}


def test_first_seen_facts_override_start_times() -> None:
    marks = _three(5.0, 1.0, 3.0, bridge={"first_seen_s": 0.0})
    assert compile_item(T.SPATIOTEMPORAL_ORDERING, marks).answer == "the bridge, then the tower, then the lake"


def test_question_lists_the_regions_in_seeded_order_not_by_time() -> None:
    questions = {compile_item(T.SPATIOTEMPORAL_ORDERING, _three(1.0, 2.0, 3.0), seed).question for seed in range(30)}
    listings = {tuple(sorted(("bridge", "tower", "lake"), key=q.index)) for q in questions}
    assert len(listings) >= 3  # not always bridge, tower, lake


@pytest.mark.parametrize(("t_tower", "gap"), [(5.0, 0.0), (5.5, 0.5), (5.99, 1.0)])
def test_ties_in_first_seen_time_are_refused(t_tower: float, gap: float) -> None:
    # the stated tie rule: first sightings less than 1.0 s apart cannot be ordered
    field, message = refusal(T.SPATIOTEMPORAL_ORDERING, _three(5.0, t_tower, 9.0))
    assert field == "facts.first_seen_s"
    assert message.startswith(f"the bridge and the tower are first seen {gap:.1f} s apart")
    assert "at least 1.0 s between first sightings" in message
    # exactly 1.0 s apart is enough
    assert compile_item(T.SPATIOTEMPORAL_ORDERING, _three(5.0, 6.0, 9.0)).answer.startswith("the bridge")


def test_a_region_never_seen_cannot_be_ordered() -> None:
    field, message = refusal(T.SPATIOTEMPORAL_ORDERING, _three(1.0, 3.0, 5.0, lake={"visible": False}))
    assert field == "facts.visible" and message.startswith("the lake is marked as never seen")


# ---- Region Interaction -------------------------------------------------------------------

# A 40 x 40 px park: equivalent radius 22.57 px, so passing by is within 11.28 px.
PARK = (80, 20, 120, 60)


@pytest.mark.parametrize(
    ("path", "interaction"),
    [
        ([(10, 40), (190, 40)], "enters"),  # straight through
        ([(10, 90), (100, 60), (190, 90)], "enters"),  # touches the outline: counts as entering
        ([(10, 70), (190, 70)], "passes_by"),  # 10 px from the edge
        ([(10, 72), (190, 72)], "stays_away"),  # 12 px from the edge
        ([(10, 95), (190, 95)], "stays_away"),
    ],
)
def test_interaction_of_a_trajectory_is_geometry(path: list, interaction: str) -> None:
    cyclist = track(path, [0.0, *[float(i + 1) for i in range(len(path) - 1)]], label="cyclist")
    item = compile_item(T.REGION_INTERACTION, [cyclist, box_region(*PARK, label="park")], seed=1)
    assert item.provenance["interaction"] == interaction and item.provenance["from"] == "geometry"
    assert item.provenance["pass_by_limit_px"] == round(PASS_BY_SHARE * (1600 / 3.141592653589793) ** 0.5, 1)
    assert (
        item.answer
        == {
            "enters": "it goes into the park",
            "passes_by": "it passes close by the park without entering",
            "stays_away": "it stays away from the park",
        }[interaction]
    )
    assert len(item.options) == 3


def test_interaction_of_a_point_target_comes_from_its_fact() -> None:
    dog = point(30, 80, label="pedestrian", facts={"interaction": "passes_by"})
    assert compile_item(T.REGION_INTERACTION, [dog, box_region(*PARK, label="park")]).answer == (
        "it passes close by the park without entering"
    )
    dog.facts = {}
    assert refusal(T.REGION_INTERACTION, [dog, box_region(*PARK, label="park")]) == (
        "facts.interaction",
        "set the fact 'interaction' on the pedestrian: one of 'enters', 'passes_by', 'stays_away'",
    )


def test_a_fact_contradicting_the_trajectory_is_refused() -> None:
    cyclist = track([(10, 40), (190, 40)], [0, 1], label="cyclist", facts={"interaction": "stays_away"})
    field, message = refusal(T.REGION_INTERACTION, [cyclist, box_region(*PARK, label="park")])
    assert field == "facts.interaction"
    assert message.startswith("the trajectory of the cyclist enters the park (closest approach 0 px")


# ---- Region Reachability ------------------------------------------------------------------


def _lot():  # type: ignore[no-untyped-def]
    return box_region(150, 40, 180, 60, label="parking lot")


@pytest.mark.parametrize(
    ("path", "reaches"),
    [
        ([(10, 50), (40, 50)], True),  # heading east, straight at the lot
        ([(10, 80), (40, 72)], True),  # a little north of east: y = 42.7 at the lot's edge x = 150
        ([(10, 80), (40, 70)], False),  # more to the north: y = 33.3 at x = 150, passes above it
        ([(10, 50), (40, 80)], False),  # heading south-east, below the lot
        ([(60, 50), (40, 50)], False),  # heading west, away from it
    ],
)
def test_going_straight_is_decided_by_the_ray_along_the_last_heading(path: list, reaches: bool) -> None:
    truck = track(path, [0.0, 1.0], label="truck", facts={"future_action": "straight"})
    item = compile_item(T.REGION_REACHABILITY, [truck, _lot()], seed=2)
    assert key_of(item) is reaches and item.provenance["reaches"] is reaches
    assert "keeps going straight" in item.question and "parking lot" in item.question


def test_other_actions_need_the_reaches_fact() -> None:
    car = ellipse(40, 50, 4, 3, label="car", facts={"future_action": "Turns left at the next junction"})
    assert refusal(T.REGION_REACHABILITY, [car, _lot()])[0] == "facts.reaches"
    car.facts["reaches"] = False
    item = compile_item(T.REGION_REACHABILITY, [car, _lot()], seed=5)
    assert key_of(item) is False and "turns left at the next junction" in item.question


def test_reachability_refusals() -> None:
    truck = track([(10, 50), (40, 50)], [0, 1], label="truck", facts={"future_action": "straight", "reaches": False})
    assert refusal(T.REGION_REACHABILITY, [truck, _lot()]) == (
        "facts.reaches",
        "going straight on, the truck meets the parking lot, but its fact 'reaches' says no; correct the "
        "trajectory or the fact",
    )
    inside = track([(100, 50), (160, 50)], [0, 1], label="truck", facts={"future_action": "straight"})
    assert refusal(T.REGION_REACHABILITY, [inside, _lot()])[0] == "marks"
    assert refusal(T.REGION_REACHABILITY, [track([(10, 50), (40, 50)], [0, 1], label="truck"), _lot()]) == (
        "facts.future_action",
        "set the fact 'future_action' on the truck: what the target does next: 'straight', or a clause like "
        "'turns left at the junction'",
    )
