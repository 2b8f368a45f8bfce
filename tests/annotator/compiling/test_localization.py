"""Localization templates with hand-built marks: Event Geo-localization, Trajectory Matching,
Temporal Grounding."""

from __future__ import annotations

import math

import pytest

from annotator.compiling.distractors import point_separation, track_threshold
from annotator.compiling.tracks import Track, track_distance
from annotator.models import Item
from tests.annotator.compiling.builders import box_region, compile_item, point, refusal, track

T = Item.Task


# ---- Event Geo-localization ---------------------------------------------------------------


def test_event_options_are_the_event_place_and_three_separated_others() -> None:
    # given a point where "the white van stops" at 7.5 s, and one decoy place
    event = point(60, 30, label="van", time_start=7.5, facts={"event": "The white van stops."})
    decoy = point(160, 70, label="landmark")
    item = compile_item(T.EVENT_GEOLOCALIZATION, [event, decoy], seed=9)
    # then A-D name four places; the key's is the event's own
    assert item.options == ["A", "B", "C", "D"]
    places = [tuple(c["geometry"]["coordinates"]) for c in item.provenance["candidates"]]
    assert places[item.options.index(item.answer)] == (60, 30)
    assert tuple(decoy.geometry["coordinates"]) in places
    gap = point_separation(200, 100)
    assert gap == 15.0 and item.provenance["distractors"]["min_separation_px"] == 15.0
    assert all(math.dist(p, q) >= gap for i, p in enumerate(places) for q in places[i + 1 :])
    # and the question tells the event as a clause at its time
    assert "the white van stops" in item.question and "7.5 s" in item.question


def test_event_without_a_description_is_refused() -> None:
    assert refusal(T.EVENT_GEOLOCALIZATION, [point(60, 30, label="van")]) == (
        "facts.event",
        "set the fact 'event' on the van: what happens there, as a short clause, e.g. 'the white van stops at "
        "the kerb'",
    )


# ---- Trajectory Matching ------------------------------------------------------------------


def _truth(item) -> dict:  # type: ignore[no-untyped-def]
    return item.provenance["candidates"][item.options.index(item.answer)]


@pytest.mark.parametrize("seed", range(12))
def test_every_trajectory_decoy_is_another_route_never_a_time_warp(seed: int) -> None:
    # given a timed track (a time warp of it would be possible)
    bus = track([(20, 20), (90, 30), (150, 80)], [1.0, 3.0, 6.0], label="bus")
    item = compile_item(T.TRAJECTORY_MATCHING, [bus], seed=seed)
    truth = _truth(item)
    assert truth["source"] == "truth" and truth["geometry"]["coordinates"] == bus.geometry["coordinates"]
    tracks = [
        Track(tuple(map(tuple, c["geometry"]["coordinates"])), tuple(c["geometry"]["vertex_times"]) or None)
        for c in item.provenance["candidates"]
    ]
    key = tracks[item.options.index(item.answer)]
    limit = track_threshold(key)
    assert item.provenance["distractors"]["min_frechet_px"] == round(limit, 1)
    # then every decoy's route is at least the threshold (discrete Fréchet, no clock) from the key's
    # and from each other's (the record keeps 0.1 px), and none follows the key's path
    decoys = [t for t in tracks if t is not key]
    assert len(decoys) == 3 and all(track_distance(key, d) >= limit - 0.5 for d in decoys)
    assert all(track_distance(a, b) >= limit - 0.5 for i, a in enumerate(decoys) for b in decoys[i + 1 :])
    assert not any("time" in c["source"] for c in item.provenance["candidates"])
    assert not any(d.points == key.points for d in decoys)
    assert "bus" in item.question and "1.0 s" in item.question and "6.0 s" in item.question


def test_other_targets_tracks_are_offered_first() -> None:
    bus = track([(20, 20), (90, 30), (150, 80)], [0, 1, 2], label="bus")
    taxi = track([(10, 90), (190, 60)], [0, 2], label="taxi")
    item = compile_item(T.TRAJECTORY_MATCHING, [bus, taxi], seed=0)
    assert f"mark {taxi.id}" in [c["source"] for c in item.provenance["candidates"]]
    assert "bus" in item.question and "taxi" not in item.question


def test_untimed_track_uses_the_mark_interval_and_no_time_warps() -> None:
    bus = track([(20, 20), (90, 30), (150, 80)], label="bus", time_start=2.0, time_end=9.0)
    items = [compile_item(T.TRAJECTORY_MATCHING, [bus], seed) for seed in range(10)]
    assert {tuple(it.provenance["interval_s"]) for it in items} == {(2.0, 9.0)}
    sources = {c["source"].split(" ")[0] for it in items for c in it.provenance["candidates"]}
    assert "time-warped" not in sources and {"reversed", "mirrored"} <= sources


@pytest.mark.parametrize("points", [[(50, 50)], [(50, 50), (50, 50)]])
def test_one_vertex_trajectory_is_refused(points: list) -> None:
    assert refusal(T.TRAJECTORY_MATCHING, [track(points, label="bus", time_end=3.0)]) == (
        "geometry",
        "the trajectory of the bus has 1 distinct vertex; draw at least 2 vertices where the target moves",
    )


def test_trajectory_without_any_time_span_is_refused() -> None:
    field, message = refusal(T.TRAJECTORY_MATCHING, [track([(20, 20), (90, 30)], label="bus")])
    assert field == "time_end" and "the interval the target moves in" in message


# ---- Temporal Grounding -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "facts", "answer", "source"),
    [
        (3.0, {}, "3", "mark start time"),
        (3.0, {"first_seen_s": 4.25}, "4.25", "fact first_seen_s"),
        (0.0, {"first_seen_s": 0}, "0", "fact first_seen_s"),
        (12.345, {"visible": True}, "12.35", "mark start time"),
    ],
)
def test_first_seen_time_is_the_key(start: float, facts: dict, answer: str, source: str) -> None:
    tower = box_region(10, 10, 40, 40, label="tower", time_start=start, facts=facts)
    item = compile_item(T.TEMPORAL_GROUNDING, [tower])
    assert (item.answer, item.options, item.answer_format) == (answer, [], "timestamp")
    assert item.provenance["first_seen_from"] == source and "tower" in item.question


def test_region_never_seen_has_no_first_seen_time() -> None:
    tower = box_region(10, 10, 40, 40, label="tower", facts={"visible": False})
    assert refusal(T.TEMPORAL_GROUNDING, [tower]) == (
        "facts.visible",
        "the tower is marked as never seen in the video, so it has no first-seen time; choose a region the drone "
        "sees, or correct its 'visible' fact",
    )
    bad = box_region(10, 10, 40, 40, label="tower", facts={"first_seen_s": "soon"})
    assert refusal(T.TEMPORAL_GROUNDING, [bad])[0] == "facts.first_seen_s"
