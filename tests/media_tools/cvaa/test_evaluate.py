"""media_tools.cvaa.evaluate: the hit rule at its boundary, recall@k, IoU, centre error and chance rows."""

from __future__ import annotations

import math

import numpy as np
import pytest

from media_tools.cvaa import (
    HIT_IOU,
    Located,
    Pair,
    compare,
    evaluate,
    hits,
    random_locator,
    random_windows,
    report_table,
    window_boxes,
)

QUAD = np.array([[100, 100], [300, 100], [300, 200], [100, 200]], float)  # box [100, 100, 300, 200]
FRAME = np.zeros((10, 10, 3), np.uint8)


def _answer(*boxes: list[float]) -> Located:
    arr = np.array(boxes, float).reshape(-1, 4)
    scores = np.linspace(1, 0, len(arr))
    return Located("fake", arr, scores, np.zeros(len(arr)), np.zeros((len(arr), 4, 2)))


def test_a_hit_is_iou_of_at_least_one_half_with_the_footprints_box() -> None:
    answer = _answer(
        [100, 100, 300, 200],  # the footprint's own box: IoU 1
        [100, 100, 200, 200],  # half of it: IoU exactly 0.5
        [100, 100, 199.98, 200],  # IoU 0.4999
        [100, 100, 300, 150],  # the other half, the other way: IoU 0.5
    )
    assert HIT_IOU == 0.5
    assert hits(answer, QUAD).tolist() == [True, True, False, True]


def test_a_box_around_the_footprints_centre_with_little_overlap_is_a_miss() -> None:
    # given boxes that hold the footprint's centre (200, 150) but overlap it too little or too much
    answer = _answer(
        [190, 140, 210, 160],  # small, inside: IoU 400 / 20000 = 0.02
        [0, 0, 400, 300],  # large, around it: IoU 20000 / 120000 = 0.17
        [150, 100, 350, 200],  # shifted by a quarter: IoU 15000 / 25000 = 0.6
    )
    # then only the one that overlaps enough counts (the old rule counted all three)
    assert hits(answer, QUAD).tolist() == [False, False, True]


def test_a_tilted_footprint_is_judged_against_its_bounding_box() -> None:
    diamond = np.array([[200, 0], [400, 200], [200, 400], [0, 200]], float)  # box [0, 0, 400, 400]
    assert hits(_answer([0, 0, 400, 400], [0, 0, 400, 199]), diamond).tolist() == [True, False]


def test_recall_at_k_mean_iou_and_centre_error_over_frames() -> None:
    pairs = [Pair(FRAME, QUAD), Pair(FRAME, QUAD + 1000), Pair(FRAME, QUAD)]
    answers = iter(
        [
            _answer([100, 100, 300, 200]),  # hit at rank 1, IoU 1, centre error 0
            _answer([0, 0, 10, 10], [1100, 1100, 1300, 1200]),  # hit at rank 2; first box far off
            Located.nothing("fake"),  # no answer: infinite centre error
        ]
    )
    report = evaluate(lambda _: next(answers), pairs, ks=(1, 2), metres_per_px=0.5)
    assert report.recall == {1: 1 / 3, 2: 2 / 3}
    assert report.mean_iou == 1 / 3 and report.no_answer == 1 and report.frames == 3
    assert [f["hit_rank"] for f in report.per_frame] == [1, 2, None]
    far = math.hypot(1200 - 5, 1150 - 5)  # from (5, 5) to the footprint's centre (1200, 1150)
    assert [f["centre_error_px"] for f in report.per_frame] == [0.0, pytest.approx(far), math.inf]
    # the footprint is 200 x 100 px: its size is sqrt(20000) px
    assert report.per_frame[1]["centre_error_frac"] == pytest.approx(far / math.sqrt(20000))
    assert report.centre_error_px == pytest.approx(far) and report.centre_error_m == pytest.approx(far / 2)
    assert report.method == "fake"


def test_a_locator_that_answers_less_cannot_improve_its_median_centre_error() -> None:
    pairs = [Pair(FRAME, QUAD)] * 3
    answers = iter([_answer([100, 100, 300, 200]), Located.nothing("x"), Located.nothing("x")])
    report = evaluate(lambda _: next(answers), pairs)
    assert report.centre_error_px == math.inf and report.centre_error_m is None


def test_random_windows_expectation_on_a_known_grid() -> None:
    # given a 4 x 4 grid of 100 px windows without overlap, and a footprint that is one of them
    boxes = window_boxes(400, 400, 100, 0.0)
    assert len(boxes) == 16
    pair = Pair.from_box(FRAME, [100, 200, 200, 300])
    # when chance is computed: only that window reaches IoU 0.5 (neighbours share nothing)
    report = random_windows(boxes, [pair], ks=(1, 5, 16), metres_per_px=2.0)
    # then recall@k is k / 16, and the IoU is that of the average window
    assert report.recall == {1: pytest.approx(1 / 16), 5: pytest.approx(5 / 16), 16: pytest.approx(1.0)}
    assert report.per_frame[0]["hit_windows"] == 1
    assert report.mean_iou == pytest.approx(1 / 16)
    # and the centre error is the mean distance from the 16 window centres to (150, 250), in metres too
    centres = np.array([(x, y) for y in (50, 150, 250, 350) for x in (50, 150, 250, 350)], float)
    mean = np.hypot(*(centres - [150, 250]).T).mean()
    assert report.centre_error_px == pytest.approx(mean) and report.centre_error_m == pytest.approx(2 * mean)
    assert report.centre_error_frac == pytest.approx(mean / 100)


def test_random_windows_with_two_hits_among_four() -> None:
    boxes = np.array([[0, 0, 100, 100], [0, 0, 100, 60], [500, 500, 600, 600], [700, 0, 800, 100]], float)
    pair = Pair.from_box(FRAME, [0, 0, 100, 100])
    report = random_windows(boxes, [pair], ks=(1, 2, 3))
    # P(no hit in k draws without replacement) = C(2, k) / C(4, k): 1/2, 1/6, 0
    assert report.recall == {1: pytest.approx(0.5), 2: pytest.approx(5 / 6), 3: pytest.approx(1.0)}


def test_a_seeded_random_draw_repeats_and_averages_to_the_expectation() -> None:
    boxes = window_boxes(400, 400, 100, 0.0)
    pairs = [Pair.from_box(FRAME, [100, 200, 200, 300])] * 2000
    first = evaluate(random_locator(boxes, k=5, seed=3), pairs)
    again = evaluate(random_locator(boxes, k=5, seed=3), pairs)
    assert first.recall == again.recall
    # within three standard deviations of 2000 draws from the exact expectation
    assert first.recall[1] == pytest.approx(1 / 16, abs=0.016) and first.recall[5] == pytest.approx(5 / 16, abs=0.031)
    # each answer holds 5 distinct windows of the grid
    answer = random_locator(boxes, k=5, seed=1)(FRAME)
    assert len({tuple(b) for b in answer.boxes}) == 5 and answer.quads.shape == (5, 4, 2)


def test_compare_runs_each_locator_on_the_same_pairs() -> None:
    pairs = [Pair.from_box(FRAME, [100, 100, 300, 200])]
    reports = compare({"good": lambda _: _answer([100, 100, 300, 200]), "none": lambda _: Located.nothing("x")}, pairs)
    assert reports["good"].recall[1] == 1.0 and reports["none"].recall[1] == 0.0
    table = report_table(reports)
    assert "good" in table and "R@1 1.00" in table and "R@5 0.00" in table
    assert "centre err 0 px = 0.00 footprint" in table


def test_a_placement_is_scored_by_its_quads_box_and_none_is_no_answer() -> None:
    from media_tools.cvaa import Placement
    from media_tools.cvaa.evaluate import evaluate_answers, located_from_placement

    # given one placement exactly on the footprint, one shifted by half its width, and no answer
    shifted = QUAD + np.array([100.0, 0.0])
    answers = [
        located_from_placement(Placement("matching", QUAD, (10, 10), 0.9, 1.0), "geometry"),
        located_from_placement(Placement("chaining", shifted, (10, 10), 0.4, 5.0), "geometry"),
        located_from_placement(None, "geometry"),
    ]
    report = evaluate_answers(answers, [Pair(FRAME, QUAD)] * 3, method="geometry")

    # then only the first hits (the shifted box has IoU 1/3), the third counts as a miss with no answer
    assert report.recall[1] == pytest.approx(1 / 3)
    assert [round(f["iou"], 3) for f in report.per_frame] == [1.0, 0.333, 0.0]
    assert report.no_answer == 1
    assert answers[0].scores[0] == 0.9 and answers[1].details["source"] == "chaining"
    with pytest.raises(ValueError, match="2 answers for 3 pairs"):
        evaluate_answers(answers[:2], [Pair(FRAME, QUAD)] * 3, method="geometry")


def test_reliability_counts_hits_per_confidence_bin_with_the_top_bin_closed() -> None:
    from media_tools.cvaa.evaluate import reliability, reliability_table

    bins = reliability([0.05, 0.3, 0.5, 0.95, 1.0, -1.0], [False, True, True, True, False, False])

    assert [(b.frames, b.hits) for b in bins] == [(1, 0), (1, 1), (1, 1), (2, 1)]
    assert bins[3].hit_rate == 0.5 and math.isnan(reliability([], []).__getitem__(0).hit_rate)
    assert "[0.9, 1.0]: 1/2 = 0.50" in reliability_table(bins)
