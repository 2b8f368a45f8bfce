"""annotator.compiling.audit.rows: items read from records, and which items ask the same thing."""

from __future__ import annotations

from typing import Any

from annotator.compiling.audit import near_duplicates, row_from_record, rows_from_records


def _mark(i: int, kind: str) -> dict[str, Any]:
    return {"id": i, "kind": kind, "label": "car"}


def _record(uid: str, task: str, marks: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"id": uid, "task": task, "scene": "saro", "question": "q", "options": [], "answer": "3",
            "answer_format": "number", "provenance": {"marks": marks, **extra}}  # fmt: skip


def test_zone_counting_about_two_regions_is_not_a_duplicate() -> None:
    # given two regions counting the same instance marks
    a, b, p, e = _mark(1, "polygon"), _mark(2, "polygon"), _mark(3, "point"), _mark(4, "ellipse")
    rows = rows_from_records([_record("i1", "zone_counting", [a, p, e]), _record("i2", "zone_counting", [b, p, e])])
    assert rows[0].roles == (("instances", (3, 4)), ("region", (1,)))
    assert rows[1].roles == (("instances", (3, 4)), ("region", (2,)))
    assert near_duplicates(rows) == (0, 0)
    # and the same region with the same instances, given in another order, is one
    again = row_from_record(_record("i3", "zone_counting", [a, e, p]))
    assert near_duplicates([*rows, again]) == (1, 2)


def test_marks_the_template_no_longer_places_keep_their_order() -> None:
    # given items compiled when an ellipse could be the region: the first ellipse given was the region
    a, b, p = _mark(1, "ellipse"), _mark(2, "ellipse"), _mark(3, "point")
    rows = rows_from_records([_record("i1", "zone_counting", [a, b, p]),
                              _record("i2", "zone_counting", [b, a, p])])  # fmt: skip
    assert rows[0].roles == (("in order", (1, 2, 3)),) and rows[0].mark_ids == rows[1].mark_ids
    assert near_duplicates(rows) == (0, 0)


def test_three_regions_in_one_role_are_the_same_question_in_any_order() -> None:
    r1, r2, r3 = _mark(5, "polygon"), _mark(6, "polygon"), _mark(7, "polygon")
    rows = rows_from_records([_record("i1", "spatiotemporal_ordering", [r1, r2, r3]),
                              _record("i2", "spatiotemporal_ordering", [r3, r1, r2])])  # fmt: skip
    assert rows[0].roles == (("regions", (5, 6, 7)),)
    assert near_duplicates(rows) == (1, 2)


def test_trajectory_matching_with_target_and_decoy_swapped_is_not_a_duplicate() -> None:
    t1, t2 = _mark(7, "polyline"), _mark(8, "polyline")
    rows = rows_from_records([_record("i1", "trajectory_matching", [t1, t2]),
                              _record("i2", "trajectory_matching", [t2, t1])])  # fmt: skip
    assert rows[0].roles == (("decoys", (8,)), ("track", (7,)))
    assert near_duplicates(rows) == (0, 0)


def test_the_same_marks_in_another_task_are_not_a_duplicate() -> None:
    region = _mark(1, "polygon")
    rows = [row_from_record(_record("i1", "zone_counting", [region])),
            row_from_record(_record("i2", "target_visibility", [region]))]  # fmt: skip
    assert near_duplicates(rows) == (0, 0)


def test_without_recorded_marks_the_set_of_marks_stands_in() -> None:
    record = _record("i1", "zone_counting", [])
    rows = [row_from_record(record, mark_ids=[4, 5]), row_from_record(record, mark_ids=[5, 4])]
    assert rows[0].roles is None and rows[0].mark_ids == frozenset({4, 5})
    assert near_duplicates(rows) == (1, 2)


def test_yes_no_truth_and_polarity_come_from_provenance() -> None:
    record = {"id": 1, "task": "target_visibility", "scene_id": 3, "question": "Is it not seen?",
              "options": ["yes", "no"], "answer": "no", "answer_format": "yes_no",
              "provenance": {"polarity": "negative", "phrasing_text": "Is the {region} not seen?"}}  # fmt: skip
    row = row_from_record(record)
    assert (row.truth, row.polarity, row.scene_id, row.phrasing) == (True, "negative", 3, "Is the {region} not seen?")
