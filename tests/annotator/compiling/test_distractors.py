"""annotator.compiling.distractors: wrong options are never the truth, never closer to it or to each
other than their stated thresholds, stay inside the image, and follow the seed."""

from __future__ import annotations

import contextlib
import math
import random
from itertools import combinations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from shapely.affinity import rotate, scale, translate
from shapely.geometry import LineString, Point, Polygon, box

from annotator.compiling.area import ImageArea, image_area
from annotator.compiling.distractors import (
    POINT_EDGE_MARGIN,
    POINT_MIN_SEPARATION,
    POINT_MIN_SEPARATION_PX,
    REGION_MAX_IOU,
    TRACK_MIN_FRECHET_PX,
    other_choices,
    point_candidates,
    region_candidates,
    track_candidates,
    track_threshold,
)
from annotator.compiling.errors import TemplateError
from annotator.compiling.spatial import iou
from annotator.compiling.tracks import Track, mirrored_track, reversed_track, track_distance
from annotator.marking.geometry import region_shape
from tests.annotator.compiling.builders import image

seeds = st.integers(0, 2**32)
sizes = st.tuples(st.integers(60, 800), st.integers(60, 800))


def _shape(geometry: dict):  # type: ignore[no-untyped-def]
    return region_shape("ellipse" if geometry["type"] == "Ellipse" else "polygon", geometry)


def _track(geometry: dict) -> Track:
    times = geometry.get("vertex_times") or None
    return Track(tuple(tuple(p) for p in geometry["coordinates"]), tuple(times) if times else None)  # type: ignore[arg-type]


@given(sizes, st.floats(0, 1), st.floats(0, 1), seeds)
def test_point_candidates_keep_their_distance(size: tuple[int, int], fx: float, fy: float, seed: int) -> None:
    width, height = size
    truth = (fx * width, fy * height)
    wrong = point_candidates(truth, [], area=ImageArea.whole(width, height), rng=random.Random(seed))
    places = [truth, *(tuple(c.geometry["coordinates"]) for c in wrong)]
    separation = max(POINT_MIN_SEPARATION * min(width, height), POINT_MIN_SEPARATION_PX)
    assert len(wrong) == 3 and len(set(places)) == 4
    # rounding to 0.1 px for the record may take a hair off the separation
    assert all(math.dist(p, q) >= separation - 0.1 for p, q in combinations(places, 2))
    margin = POINT_EDGE_MARGIN * min(width, height)
    assert all(margin - 0.05 <= x <= width - margin + 0.05 and margin - 0.05 <= y <= height - margin + 0.05
               for x, y in places[1:])  # fmt: skip


def test_point_decoys_are_used_when_far_enough() -> None:
    # given one decoy 5 px from the truth (too close) and one 60 px away
    decoys = [((105.0, 50.0), "mark 1"), ((160.0, 50.0), "mark 2")]
    wrong = point_candidates((100.0, 50.0), decoys, area=ImageArea.whole(200, 100), rng=random.Random(1))
    assert wrong[0].source == "mark 2"
    assert [c.source for c in wrong] == ["mark 2", "random", "random"]


def test_point_candidates_refuse_a_too_small_image() -> None:
    with pytest.raises(TemplateError) as err:
        point_candidates((8.0, 8.0), [], area=ImageArea.whole(16, 16), rng=random.Random(0))
    assert err.value.field == "marks"
    assert str(err.value) == (
        "the image has no room for 3 other locations 12 px from the event and from each other; "
        "mark the event on a larger image"
    )


rects = st.tuples(st.floats(0.02, 0.3), st.floats(0.02, 0.3), st.floats(0, 1), st.floats(0, 1))


@given(sizes, rects, st.booleans(), seeds)
def test_region_candidates_overlap_below_the_threshold(size, rect, as_ellipse: bool, seed: int) -> None:  # type: ignore[no-untyped-def]
    width, height = size
    fw, fh, fx, fy = rect
    w, h = fw * width, fh * height
    x0, y0 = fx * (width - w), fy * (height - h)
    if as_ellipse:
        truth = {"type": "Ellipse", "center": [x0 + w / 2, y0 + h / 2], "radii": [w / 2, h / 2], "rotation": 0}
    else:
        truth = {"type": "Polygon", "coordinates": [[[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]]]}
    try:
        wrong = region_candidates(truth, [], area=ImageArea.whole(width, height), rng=random.Random(seed))
    except TemplateError:
        assume(False)  # a crowded draw may be refused; that is a stated outcome, tested below
    shapes = [_shape(truth), *(_shape(c.geometry) for c in wrong)]
    assert len(wrong) == 3
    assert all(iou(a, c) < REGION_MAX_IOU for a, c in combinations(shapes, 2))
    frame = box(0, 0, width, height)
    assert all(frame.buffer(0.1).covers(s) for s in shapes[1:])
    assert all(c.geometry["type"] == truth["type"] for c in wrong)  # an ellipse stays an ellipse


def test_region_decoys_overlapping_the_truth_are_skipped() -> None:
    truth = {"type": "Polygon", "coordinates": [[[10, 10], [40, 10], [40, 40], [10, 40]]]}
    half = {"type": "Polygon", "coordinates": [[[25, 10], [55, 10], [55, 40], [25, 40]]]}  # IoU 1/3
    apart = {"type": "Polygon", "coordinates": [[[100, 50], [130, 50], [130, 80], [100, 80]]]}
    wrong = region_candidates(
        truth, [(half, "mark 1"), (apart, "mark 2")], area=ImageArea.whole(200, 100), rng=random.Random(3)
    )
    assert [c.source for c in wrong] == ["mark 2", "moved", "moved"]
    assert wrong[0].info == {"iou_with_truth": 0.0}


def test_region_too_large_for_three_others_is_refused() -> None:
    big = {"type": "Polygon", "coordinates": [[[0, 0], [150, 0], [150, 90], [0, 90]]]}
    with pytest.raises(TemplateError) as err:
        region_candidates(big, [], area=ImageArea.whole(200, 100), rng=random.Random(0))
    assert err.value.field == "marks"
    assert str(err.value) == (
        "the image has no room for 3 other regions of this size overlapping it by less than 10% (IoU); "
        "draw a smaller region or add decoy regions"
    )


vertices = st.lists(st.tuples(st.floats(0.2, 0.8), st.floats(0.2, 0.8)), min_size=2, max_size=6)


@given(vertices, st.booleans(), seeds)
def test_track_candidates_are_frechet_far_from_the_truth_and_each_other(pts, timed: bool, seed: int) -> None:  # type: ignore[no-untyped-def]
    width, height = 400, 300
    points = tuple((x * width, y * height) for x, y in pts)
    assume(len(set(points)) >= 2 and track_threshold(Track(points)) > TRACK_MIN_FRECHET_PX)
    truth = Track(points, tuple(float(2 * i) for i in range(len(points))) if timed else None)
    try:
        wrong, threshold = track_candidates(truth, [], area=ImageArea.whole(width, height), rng=random.Random(seed))
    except TemplateError:
        assume(False)
    tracks = [truth, *(_track(c.geometry) for c in wrong)]
    assert len(wrong) == 3 and threshold == track_threshold(truth)
    # the routes differ (the record keeps 0.1 px, so allow that much below the threshold), and none
    # is the truth's path on another clock
    assert all(track_distance(a, c) >= threshold - 0.5 for a, c in combinations(tracks, 2))
    assert not any("time" in c.source for c in wrong)
    frame = box(0, 0, width, height).buffer(0.05)
    assert all(frame.covers(LineString(t.points)) for t in tracks[1:])


def test_track_candidates_take_other_targets_first_and_never_time_warps() -> None:
    truth = Track(((20.0, 20.0), (100.0, 20.0), (180.0, 80.0)), (0.0, 4.0, 8.0))
    other = Track(((20.0, 90.0), (180.0, 90.0)), (0.0, 8.0))
    wrong, threshold = track_candidates(
        truth, [(other, "mark 7")], area=ImageArea.whole(200, 100), rng=random.Random(5)
    )
    sources = [c.source for c in wrong]
    assert sources[0] == "mark 7"
    assert threshold == pytest.approx(0.25 * math.hypot(160, 60))
    # over seeds, every transformation of the truth shows up among the options
    seen = set()
    for seed in range(40):
        cands, _ = track_candidates(truth, [], area=ImageArea.whole(200, 100), rng=random.Random(seed))
        seen |= {c.source.split(" ")[0] for c in cands}
    assert {"reversed", "mirrored"} <= seen and not any("time" in s for s in seen)


def _close(a: Track, b: Track) -> bool:
    if len(a.points) != len(b.points):
        return False
    return all(math.dist(p, q) < 0.2 for p, q in zip(a.points, b.points, strict=True))


@pytest.mark.parametrize("seed", range(6))
def test_track_options_are_closed_under_reversing_and_mirroring_so_the_key_does_not_stand_out(seed: int) -> None:
    # given a curved track and no other target's track
    truth = Track(((20.0, 30.0), (90.0, 40.0), (140.0, 150.0), (260.0, 170.0)), (0.0, 2.0, 4.0, 6.0))
    wrong, _ = track_candidates(truth, [], area=ImageArea.whole(300, 200), rng=random.Random(seed))
    tracks = [truth, *(_track(c.geometry) for c in wrong)]
    # then every option's reversed and mirrored copies are options too: each has the same partners,
    # so a model that only compares the drawn tracks cannot tell which one the others came from
    for track in tracks:
        assert any(_close(reversed_track(track), other) for other in tracks)
        assert any(_close(mirrored_track(track), other) for other in tracks)
    # and with another target's track, both it and the truth come with their reversed copies
    other = Track(((30.0, 180.0), (150.0, 120.0), (280.0, 60.0)))
    wrong, _ = track_candidates(truth, [(other, "mark 7")], area=ImageArea.whole(300, 200), rng=random.Random(seed))
    assert [c.source for c in wrong] == ["mark 7", "reversed", "mark 7 reversed"]


def test_other_choices() -> None:
    assert other_choices(["a", "b", "c"], "b") == ["a", "c"]
    with pytest.raises(ValueError):
        other_choices(["a"], "z")


@given(seeds)
def test_same_seed_same_distractors(seed: int) -> None:
    truth = {"type": "Polygon", "coordinates": [[[10, 10], [40, 10], [40, 40], [10, 40]]]}
    first = region_candidates(truth, [], area=ImageArea.whole(200, 100), rng=random.Random(seed))
    again = region_candidates(truth, [], area=ImageArea.whole(200, 100), rng=random.Random(seed))
    assert first == again


# ---- the valid area -------------------------------------------------------------------------

# A 400 x 200 image whose right half is no-data (black or transparent), stored as the job stores it.
LEFT_HALF = {"type": "Polygon", "coordinates": [[[0, 0], [200, 0], [200, 200], [0, 200], [0, 0]]]}


def _half_area() -> ImageArea:
    return image_area(image(width=400, height=200, valid_area=LEFT_HALF))


def test_point_candidates_stay_in_the_valid_half_inside_its_margin() -> None:
    area = _half_area()
    margin = POINT_EDGE_MARGIN * 200
    decoys = [((300.0, 100.0), "mark 1"), ((150.0, 150.0), "mark 2")]  # the first on the black half
    for seed in range(60):
        wrong = point_candidates((40.0, 40.0), decoys, area=area, rng=random.Random(seed))
        places = [c.geometry["coordinates"] for c in wrong]
        assert all(margin - 0.05 <= x <= 200 - margin + 0.05 and margin - 0.05 <= y <= 200 - margin + 0.05
                   for x, y in places), (seed, places)  # fmt: skip
        assert wrong[0].source == "mark 2" and "mark 1" not in {c.source for c in wrong}


def test_region_candidates_stay_in_the_valid_half() -> None:
    area = _half_area()
    truth = {"type": "Polygon", "coordinates": [[[10, 10], [40, 10], [40, 40], [10, 40]]]}
    on_black = {"type": "Polygon", "coordinates": [[[250, 50], [280, 50], [280, 80], [250, 80]]]}
    half = box(0, 0, 200, 200).buffer(area.tolerance_px + 0.1)
    for seed in range(60):
        wrong = region_candidates(truth, [(on_black, "mark 1")], area=area, rng=random.Random(seed))
        assert all(half.covers(_shape(c.geometry)) for c in wrong), seed
        assert "mark 1" not in {c.source for c in wrong}


def test_track_candidates_stay_in_the_valid_half() -> None:
    area = _half_area()
    truth = Track(((20.0, 30.0), (90.0, 60.0), (150.0, 160.0)), (0.0, 3.0, 6.0))
    on_black = Track(((220.0, 20.0), (380.0, 180.0)), (0.0, 6.0))
    half = box(0, 0, 200, 200).buffer(area.tolerance_px + 0.1)
    for seed in range(60):
        wrong, _ = track_candidates(truth, [(on_black, "mark 1")], area=area, rng=random.Random(seed))
        assert all(half.covers(LineString(c.geometry["coordinates"])) for c in wrong), seed
        assert "mark 1" not in {c.source for c in wrong}


def test_a_track_whose_segment_crosses_a_no_data_notch_is_refused() -> None:
    # given an image with a no-data notch cut into its middle from the top edge
    notch = box(0, 0, 400, 200).difference(box(180, 0, 220, 150))
    area = ImageArea(400, 200, notch)
    across = Track(((150.0, 100.0), (250.0, 100.0)))  # both vertices on data, the segment over the notch
    around = Track(((150.0, 180.0), (250.0, 180.0)))
    wrong, _ = track_candidates(
        Track(((20.0, 20.0), (60.0, 190.0))), [(across, "mark 1"), (around, "mark 2")], area=area, rng=random.Random(0)
    )
    assert "mark 1" not in {c.source for c in wrong} and wrong[0].source == "mark 2"


def test_no_room_in_the_valid_area_says_so() -> None:
    # given an image with data in a 40 x 60 px corner only
    area = ImageArea(400, 200, box(0, 0, 40, 60))
    with pytest.raises(TemplateError) as err:
        point_candidates((20.0, 20.0), [], area=area, rng=random.Random(0))
    assert str(err.value) == (
        "the image has no room for 3 other locations 30 px from the event and from each other inside the part of "
        "the image that has data (3% of it; black or transparent borders are left out); mark the event on an image "
        "with more data"
    )
    truth = {"type": "Polygon", "coordinates": [[[5, 5], [35, 5], [35, 35], [5, 35]]]}
    with pytest.raises(TemplateError) as err:
        region_candidates(truth, [], area=area, rng=random.Random(0))
    assert "(IoU) inside the part of the image that has data (3% of it;" in str(err.value)
    assert str(err.value).endswith("draw a smaller region or add decoy regions there")
    with pytest.raises(TemplateError) as err:
        track_candidates(Track(((2.0, 2.0), (38.0, 2.0), (38.0, 58.0))), [], area=area, rng=random.Random(0))
    assert "from this one inside the part of the image that has data (3% of it;" in str(err.value)


def test_a_key_off_the_data_is_refused_since_it_would_stand_out() -> None:
    # given an image with data in its left half, and keys drawn (partly) on the black half
    area = _half_area()
    region = {"type": "Polygon", "coordinates": [[[180, 10], [240, 10], [240, 60], [180, 60]]]}
    cases = [
        lambda: point_candidates((300.0, 100.0), [], area=area, rng=random.Random(0)),
        lambda: region_candidates(region, [], area=area, rng=random.Random(0)),
        lambda: track_candidates(Track(((20.0, 30.0), (260.0, 90.0))), [], area=area, rng=random.Random(0)),
    ]
    # then each is refused, saying what to do, before any option is drawn
    for what, make in zip(("event's place", "region", "trajectory"), cases, strict=True):
        with pytest.raises(TemplateError) as err:
            make()
        assert str(err.value).startswith(f"the {what} lies (partly) where the satellite image has no data")
        assert str(err.value).endswith("mark it on the image's data")
    # while a key within the stated tolerance of the border is taken
    point_candidates((200.0 + area.tolerance_px / 2, 100.0), [], area=area, rng=random.Random(0))


# Valid areas like a warped frame's: the image's rectangle cut by a turned, shrunk copy of itself.
warps = st.tuples(st.floats(0, 90), st.floats(0.6, 1.0), st.floats(-0.2, 0.2), st.floats(-0.2, 0.2))


def _warped(width: int, height: int, warp: tuple[float, float, float, float]) -> ImageArea:
    angle, size, fx, fy = warp
    frame = box(0, 0, width, height)
    turned = rotate(scale(frame, size, size), angle).buffer(0)
    valid = translate(turned, fx * width, fy * height).intersection(frame)
    assume(isinstance(valid, Polygon) and valid.area > 0.2 * width * height)
    return ImageArea(width, height, valid, tolerance_px=1.5)


@given(sizes, warps, st.floats(0.2, 0.8), st.floats(0.2, 0.8), seeds)
def test_no_candidate_leaves_the_valid_area(size, warp, fx: float, fy: float, seed: int) -> None:  # type: ignore[no-untyped-def]
    width, height = size
    area = _warped(width, height, warp)
    inside = area.valid.buffer(area.tolerance_px + 0.1)
    assume(area.valid.covers(Point(fx * width, fy * height)))
    x, y = fx * width, fy * height
    # points: in the valid area, the edge margin inside its border (less the 0.1 px of the record)
    margin = POINT_EDGE_MARGIN * min(width, height)
    with contextlib.suppress(TemplateError):
        for c in point_candidates((x, y), [], area=area, rng=random.Random(seed)):
            assert area.valid.buffer(-margin + 0.1).covers(Point(c.geometry["coordinates"]))
    # regions and tracks: covered, within the stated tolerance
    r = 0.05 * min(width, height)
    region = {"type": "Ellipse", "center": [x, y], "radii": [r, r / 2], "rotation": 20}
    with contextlib.suppress(TemplateError):
        regions = region_candidates(region, [], area=area, rng=random.Random(seed))
        assert all(inside.covers(_shape(c.geometry)) for c in regions)
    track = Track(((x, y), (x + r, y + r / 2), (x + 2 * r, y)), (0.0, 1.0, 2.0))
    with contextlib.suppress(TemplateError):
        wrong, _ = track_candidates(track, [], area=area, rng=random.Random(seed))
        assert all(inside.covers(LineString(c.geometry["coordinates"])) for c in wrong)
