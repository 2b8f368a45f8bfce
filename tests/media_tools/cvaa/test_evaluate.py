"""media_tools.cvaa.evaluate: the hit rule, recall@k and mean IoU, for any locator."""

from __future__ import annotations

import numpy as np

from media_tools.cvaa import Located, Pair, compare, evaluate, hits, report_table

QUAD = np.array([[100, 100], [300, 100], [300, 200], [100, 200]], float)  # box [100, 100, 300, 200]


def _answer(*boxes: list[float]) -> Located:
    arr = np.array(boxes, float).reshape(-1, 4)
    scores = np.linspace(1, 0, len(arr))
    return Located("fake", arr, scores, np.zeros(len(arr)), np.zeros((len(arr), 4, 2)))


def test_a_box_hits_by_iou_at_the_threshold_or_by_its_centre_inside_the_footprint() -> None:
    answer = _answer(
        [100, 100, 300, 200],  # the footprint's own box
        [0, 0, 140, 140],  # IoU small, centre (70, 70) outside: miss
        [150, 130, 170, 150],  # tiny, IoU ~0.02, centre inside: hit
        [0, 100, 210, 200],  # IoU 110 / 300 = 0.37, centre (105, 150) inside: hit
        [180, 0, 420, 120],  # IoU 0.08, centre (300, 60) outside: miss
    )
    assert hits(answer, QUAD).tolist() == [True, False, True, True, False]
    # a stricter IoU alone does not remove hits by centre
    assert hits(answer, QUAD, iou_threshold=0.9).tolist() == [True, False, True, True, False]


def test_recall_at_k_and_mean_iou_over_frames() -> None:
    frame = np.zeros((10, 10, 3), np.uint8)
    pairs = [Pair(frame, QUAD), Pair(frame, QUAD + 1000), Pair(frame, QUAD)]
    answers = iter(
        [
            _answer([100, 100, 300, 200]),  # hit at rank 1, IoU 1
            _answer([0, 0, 10, 10], [1100, 1100, 1300, 1200]),  # hit at rank 2, first box IoU 0
            Located.nothing("fake"),  # no answer
        ]
    )
    report = evaluate(lambda _: next(answers), pairs, ks=(1, 2))
    assert report.recall == {1: 1 / 3, 2: 2 / 3}
    assert report.mean_iou == 1 / 3 and report.no_answer == 1 and report.frames == 3
    assert [f["hit_rank"] for f in report.per_frame] == [1, 2, None]
    assert report.method == "fake"


def test_compare_runs_each_locator_on_the_same_pairs() -> None:
    frame = np.zeros((10, 10, 3), np.uint8)
    pairs = [Pair.from_box(frame, [100, 100, 300, 200])]
    reports = compare({"good": lambda _: _answer([100, 100, 300, 200]), "none": lambda _: Located.nothing("x")}, pairs)
    assert reports["good"].recall[1] == 1.0 and reports["none"].recall[1] == 0.0
    table = report_table(reports)
    assert "good" in table and "R@1 1.00" in table and "R@5 0.00" in table
