"""annotator.compiling.tracks: positions at a time, the discrete Fréchet distance, and the
transformations that make wrong tracks."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotator.compiling.errors import TemplateError
from annotator.compiling.tracks import (
    Track,
    discrete_frechet,
    mirrored_track,
    position_at,
    resample,
    reversed_track,
    rotated_track,
    timed_track_of,
    track_distance,
    track_of,
)
from tests.annotator.compiling import builders as b

L_SHAPE = Track(((0.0, 0.0), (10.0, 0.0), (10.0, 20.0)), (2.0, 4.0, 8.0))


@pytest.mark.parametrize(
    ("t", "where"),
    [
        (2.0, (0.0, 0.0)),
        (3.0, (5.0, 0.0)),
        (4.0, (10.0, 0.0)),
        (5.0, (10.0, 5.0)),
        (8.0, (10.0, 20.0)),
        (1.99, None),
        (8.01, None),
    ],
)
def test_position_is_interpolated_between_vertex_times(t: float, where: tuple[float, float] | None) -> None:
    assert position_at(L_SHAPE, t) == (pytest.approx(where) if where else None)


def test_a_pause_holds_the_position_and_a_jump_takes_the_later_vertex() -> None:
    # given a target that waits at (10, 0) from 4 s to 6 s, then two vertices at the same 7 s
    waits = Track(((0, 0), (10, 0), (10, 0), (10, 10), (20, 10)), (0, 4, 6, 7, 7))
    assert position_at(waits, 5.0) == (10, 0)
    assert position_at(waits, 7.0) == (20, 10)
    assert position_at(Track(((0, 0), (4, 0))), 1.0) is None  # untimed: no position at a time


def test_one_vertex_trajectory_is_refused_clearly() -> None:
    # given a trajectory mark with one vertex (or two at the same place)
    for points in ([(5, 5)], [(5, 5), (5, 5)]):
        with pytest.raises(TemplateError) as err:
            track_of(b.track(points, label="bus"), "bus")
        # then the refusal says what to draw
        assert err.value.field == "geometry"
        assert str(err.value) == (
            "the trajectory of the bus has 1 distinct vertex; draw at least 2 vertices where the target moves"
        )


def test_untimed_trajectory_is_refused_where_times_are_needed() -> None:
    with pytest.raises(TemplateError) as err:
        timed_track_of(b.track([(0, 0), (5, 5)], label="van"), "van")
    assert err.value.field == "vertex_times"
    assert "give the trajectory of the van a video time at each vertex" in str(err.value)


def test_discrete_frechet_known_values() -> None:
    # identical: 0; parallel at 3 apart: 3; reversed segment of length 10: 10
    line = [(0, 0), (5, 0), (10, 0)]
    assert discrete_frechet(line, line) == 0.0
    assert discrete_frechet(line, [(x, 3) for x, _ in line]) == 3.0
    assert discrete_frechet(line, line[::-1]) == 10.0
    # a walker may wait: (0,0),(10,0) against (0,0),(0,0),(10,0) is 0
    assert discrete_frechet([(0, 0), (10, 0)], [(0, 0), (0, 0), (10, 0)]) == 0.0
    # a detour 4 up in the middle is 4 away
    assert discrete_frechet(line, [(0, 0), (5, 4), (10, 0)]) == 4.0
    with pytest.raises(ValueError):
        discrete_frechet([], line)


points = st.tuples(st.floats(0, 100), st.floats(0, 100))


@given(st.lists(points, min_size=1, max_size=8), st.lists(points, min_size=1, max_size=8))
def test_discrete_frechet_is_symmetric_and_bounded(p: list, q: list) -> None:
    d = discrete_frechet(p, q)
    assert d == pytest.approx(discrete_frechet(q, p))
    # never less than the end points' gaps, never more than the farthest pair
    assert d >= max(math.dist(p[0], q[0]), math.dist(p[-1], q[-1])) - 1e-9
    assert d <= max(math.dist(a, c) for a in p for c in q) + 1e-9


def test_resample_spreads_points_evenly_with_times() -> None:
    r = resample(L_SHAPE, 4)  # length 30: points at 0, 10, 20, 30
    assert [c for p in r.points for c in p] == pytest.approx([0, 0, 10, 0, 10, 10, 10, 20])
    assert r.times == pytest.approx((2.0, 4.0, 6.0, 8.0))


def test_transformations() -> None:
    straight = Track(((0.0, 0.0), (10.0, 0.0), (20.0, 10.0)), (0.0, 1.0, 2.0))
    assert reversed_track(straight).points == ((20.0, 10.0), (10.0, 0.0), (0.0, 0.0))
    # mirrored across the chord from (0,0) to (20,10): the middle vertex goes to the other side
    mirrored = mirrored_track(straight)
    assert [c for p in mirrored.points for c in p] == pytest.approx([0, 0, 6, 8, 20, 10])
    turned = rotated_track(Track(((0.0, 0.0), (10.0, 0.0))), 90)
    assert [c for p in turned.points for c in p] == pytest.approx([5, -5, 5, 5])


def test_the_distance_compares_routes_not_clocks() -> None:
    # given the same path on another clock, and the same path the other way
    truth = Track(((0.0, 0.0), (50.0, 0.0), (100.0, 0.0)), (0.0, 5.0, 10.0))
    other_pace = Track(truth.points, (0.0, 9.0, 10.0))
    # then the first is the same route (distance 0), the second is the route's length away
    assert track_distance(truth, other_pace) == pytest.approx(0.0, abs=1e-9)
    assert track_distance(truth, reversed_track(truth)) == pytest.approx(100.0)
