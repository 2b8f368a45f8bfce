"""A project's label set and task mix: what is accepted, and the field message for the rest."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from annotator.projects.rules import default_label_rows, labels_clean, labels_parse, task_mix_clean


def test_labels_are_trimmed_rows_with_a_kind() -> None:
    rows = labels_clean([{"name": "  parked   car ", "kind": "Instance"}, {"name": "road", "kind": "region"}])
    assert rows == [{"name": "parked car", "kind": "instance"}, {"name": "road", "kind": "region"}]


@pytest.mark.parametrize(
    ("rows", "says"),
    [
        ([], "at least one label"),
        ("car", "at least one label"),
        ([{"name": "car", "kind": "vehicle"}], "row 1 (car): kind must be instance or region"),
        ([{"name": "", "kind": "region"}], "row 1: a label name has 1 to 64 characters"),
        ([{"name": "Car", "kind": "instance"}, {"name": "car", "kind": "region"}], "row 2: 'car' is listed twice"),
        (["car"], "row 1: expected a name and a kind"),
    ],
)
def test_bad_label_rows_are_refused_naming_the_row(rows: object, says: str) -> None:
    with pytest.raises(ValidationError) as err:
        labels_clean(rows)
    assert says in err.value.message_dict["labels"][0]


def test_the_form_text_is_one_label_a_line() -> None:
    assert labels_parse("car: instance\n\nparking lot:region\n") == [
        {"name": "car", "kind": "instance"},
        {"name": "parking lot", "kind": "region"},
    ]
    with pytest.raises(ValidationError):
        labels_parse("car")  # no kind


def test_task_mix_counts_only_catalog_tasks_and_drops_zero_targets() -> None:
    assert task_mix_clean({"zone_counting": 40, "target_visibility": 0}) == {"zone_counting": 40}
    for bad, says in (
        ({"zone_count": 3}, "'zone_count' is not one of the 12 tasks"),
        ({"zone_counting": -1}, "zone_counting: a target is a whole number"),
        ({"zone_counting": 2.5}, "zone_counting: a target is a whole number"),
        ({"zone_counting": True}, "zone_counting: a target is a whole number"),
        (["zone_counting"], "expected {task id: target count}"),
    ):
        with pytest.raises(ValidationError) as err:
            task_mix_clean(bad)
        assert says in err.value.message_dict["task_mix"][0]


def test_default_labels_come_from_the_setting_with_vehicles_and_people_as_instances(settings) -> None:
    settings.SKYMARK_LABELS = ["car", "Pedestrian", "road"]
    assert default_label_rows() == [
        {"name": "car", "kind": "instance"},
        {"name": "Pedestrian", "kind": "instance"},
        {"name": "road", "kind": "region"},
    ]
