"""annotator.marking.facts: every fact a template reads is in the catalog, and writes of marks
refuse unknown facts and values of the wrong kind, each under its own field, storing nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError

from annotator.compiling.qa import get_template, registered_tasks
from annotator.marking.facts import FACTS, MAX_COUNT, facts_clean
from annotator.models import Mark
from tests.factories import MarkFactory, SceneFactory


def _errors(facts: Any, **kwargs: Any) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as exc:
        facts_clean(facts, **kwargs)
    return exc.value.message_dict


def test_every_fact_a_template_reads_is_in_the_catalog() -> None:
    read = {fact.key for task in registered_tasks() for need in get_template(task).needs for fact in need.facts}
    assert read <= set(FACTS)
    # and the catalog has nothing no template or person uses (the note is the annotator's own)
    assert set(FACTS) - read == {"note"}


@pytest.mark.parametrize(
    ("facts", "field", "says"),
    [
        ({"visble": True}, "facts.visble", "unknown fact 'visble'"),
        ({"visible": "yes"}, "facts.visible", "yes or no"),
        ({"count": 2.5}, "facts.count", "a whole number"),
        ({"count": -1}, "facts.count", "a whole number"),
        ({"count": MAX_COUNT + 1}, "facts.count", f"from 0 to {MAX_COUNT}"),
        ({"count": True}, "facts.count", "a whole number"),
        ({"first_seen_s": -0.1}, "facts.first_seen_s", "0 or more"),
        ({"at_s": 12.0}, "facts.at_s", "past the end of the video (10.00 s)"),
        ({"t1_s": float("nan")}, "facts.t1_s", "a video time"),
        ({"event": "   "}, "facts.event", "some text"),
        ({"event": "x" * 201}, "facts.event", "at most 200 characters"),
        ({"interaction": "touches"}, "facts.interaction", "one of enters, passes_by, stays_away"),
        ({"occlusion": "partial"}, "facts.occlusion", '"relation": hides | hidden_by | mutual | none'),
        ({"occlusion": {"other": 3, "relation": "hides"}}, "facts.occlusion", "a list of relations, one per other"),
        ({"occlusion": []}, "facts.occlusion", "a list of relations"),
        ({"occlusion": [{"other": 3, "relation": "covers"}]}, "facts.occlusion", '"other"'),
        ({"occlusion": [{"other": 7, "relation": "hides"}]}, "facts.occlusion", "not to this one"),
        (
            {"occlusion": [{"other": 3, "relation": "hides"}, {"other": 3, "relation": "none"}]},
            "facts.occlusion",
            "two relations to mark 3; state one relation per other mark",
        ),
    ],
)
def test_facts_clean_refuses_each_wrong_fact_under_its_field(facts: dict, field: str, says: str) -> None:
    errors = _errors(facts, duration=10.0, mark_id=7)
    assert list(errors) == [field]
    assert says in errors[field][0]


def test_facts_clean_reports_every_bad_fact_at_once_and_trims_text() -> None:
    assert set(_errors({"count": "3", "reaches": 1, "note": "ok"}, duration=None)) == {"facts.count", "facts.reaches"}
    assert _errors([1, 2], duration=None) == {"facts": ["facts must be an object of fact name to value"]}
    clean = facts_clean({"event": "  the van stops  ", "visible": False, "at_s": 3}, duration=None)
    assert clean == {"event": "the van stops", "visible": False, "at_s": 3}


def test_the_catalog_the_workspace_reads_names_kinds_and_choices() -> None:
    entries = {key: spec.describe() for key, spec in FACTS.items()}
    assert entries["interaction"]["kind"] == "choice"
    assert [c["value"] for c in entries["occlusion"]["choices"]] == ["hides", "hidden_by", "mutual", "none"]
    assert entries["count_class"]["suggest_labels"] is True
    assert "straight" in entries["future_action"]["suggestions"]


@pytest.mark.django_db
def test_the_mark_api_refuses_a_bad_fact_and_stores_nothing(annotator: Any, api: Any) -> None:
    # given a scene (its video lasts 2 s) and one mark
    scene = SceneFactory(annotators=[annotator])
    mark = MarkFactory(scene=scene, author=annotator, facts={"visible": True})
    client = api(annotator)
    # when a fact of the wrong kind is sent
    response = client.patch(f"/api/marks/{mark.id}/", {"version": 1, "facts": {"count": "many"}}, format="json")
    # then a 400 names the fact and the mark is as it was
    assert response.status_code == 400
    assert "whole number" in response.json()["facts.count"][0]
    mark.refresh_from_db()
    assert (mark.version, mark.facts) == (1, {"visible": True})
    # and a new mark with an unknown fact is not created
    image = scene.satellite_images.get()
    body = {"satellite_image": image.id, "kind": "point", "geometry": {"type": "Point", "coordinates": [5, 5]},
            "label": "car", "time_start": 0.5, "facts": {"colour": "red"}}  # fmt: skip
    response = client.post(f"/api/scenes/{scene.id}/marks/", body, format="json")
    assert response.status_code == 400 and "unknown fact 'colour'" in response.json()["facts.colour"][0]
    assert Mark.objects.filter(scene=scene).count() == 1
    # while good facts are stored as sent
    ok = client.patch(f"/api/marks/{mark.id}/", {"version": 1, "facts": {"visible": False, "event": "it stops"}},
                      format="json")  # fmt: skip
    assert ok.status_code == 200 and ok.json()["facts"] == {"visible": False, "event": "it stops"}


@pytest.mark.django_db
def test_occlusion_levels_saved_before_the_catalog_move_into_the_note(annotator: Any) -> None:
    # given marks the old workspace saved: an occlusion level as a string, one with a note already,
    # and one carrying the relation as the catalog has it
    from importlib import import_module

    from django.apps import apps

    migration = import_module("annotator.migrations.0012_legacy_occlusion_facts")
    scene = SceneFactory(annotators=[annotator])
    plain = MarkFactory(scene=scene, author=annotator, facts={"occlusion": "partial", "visible": True})
    noted = MarkFactory(scene=scene, author=annotator, facts={"occlusion": "heavy", "note": "behind the bus"})
    relation = {"occlusion": {"other": plain.id, "relation": "hides"}}
    kept = MarkFactory(scene=scene, author=annotator, facts=relation)
    # when the data migration runs
    migration._move_levels(apps, None)
    # then the levels are in the notes, the facts pass the catalog, and nothing else changed
    for mark in (plain, noted, kept):
        mark.refresh_from_db()
        assert mark.version == 1
    for mark in (plain, noted):
        assert facts_clean(mark.facts, duration=None) == mark.facts
    assert plain.facts == {"visible": True, "note": "occlusion: partial"}
    assert noted.facts == {"note": "behind the bus · occlusion: heavy"}
    assert kept.facts == relation  # a relation is left for the next migration (0013) to put in a list


def test_single_occlusion_relations_become_lists_of_one_and_back(annotator: Any) -> None:
    # given a mark saved with one occlusion relation as an object, one already with a list, one without
    from importlib import import_module

    from django.apps import apps

    migration = import_module("annotator.migrations.0013_occlusion_relation_lists")
    scene = SceneFactory(annotators=[annotator])
    tree = MarkFactory(scene=scene, author=annotator, facts={"visible": True})
    roof = MarkFactory(scene=scene, author=annotator, facts={"occlusion": {"other": tree.id, "relation": "hides"},
                                                             "visible": False})  # fmt: skip
    both = [{"other": tree.id, "relation": "none"}, {"other": roof.id, "relation": "hidden_by"}]
    wall = MarkFactory(scene=scene, author=annotator, facts={"occlusion": both})
    # when the data migration runs
    migration._to_lists(apps, None)
    # then the single relation is a list of it, which the catalog accepts; the rest is as it was
    for mark in (tree, roof, wall):
        mark.refresh_from_db()
        assert facts_clean(mark.facts, duration=None, mark_id=mark.id) == mark.facts and mark.version == 1
    assert roof.facts == {"occlusion": [{"other": tree.id, "relation": "hides"}], "visible": False}
    assert (tree.facts, wall.facts) == ({"visible": True}, {"occlusion": both})
    # and migrating back keeps each mark's first relation as the object it was
    migration._to_objects(apps, None)
    roof.refresh_from_db()
    wall.refresh_from_db()
    assert roof.facts == {"occlusion": {"other": tree.id, "relation": "hides"}, "visible": False}
    assert wall.facts == {"occlusion": both[0]}
