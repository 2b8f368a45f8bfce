"""annotator.marking.selectors: who sees which marks, and the mark an autosave edits."""

from __future__ import annotations

import pytest
from django.http import Http404

from annotator.marking import selectors
from annotator.marking.services import mark_update
from annotator.models import Item, Mark
from tests.factories import ItemFactory, MarkFactory, SatelliteImageFactory, SceneFactory, reviewer_answered

pytestmark = pytest.mark.django_db

GEOREF = {"kind": "corners", "crs": "EPSG:4326", "corners_latlon": [[57.5, 11.9], [57.5, 12.0], [57.4, 12.0]]}


def _trajectory(author):  # type: ignore[no-untyped-def]
    image = SatelliteImageFactory(georef=GEOREF)
    scene = SceneFactory(satellite_images=[image], annotators=[author])
    return MarkFactory(
        scene=scene,
        author=author,
        kind=Mark.Kind.POLYLINE,
        geometry={"type": "LineString", "coordinates": [[10, 10], [50.5, 20], [90, 60]]},
        label="bus",
        time_start=0.25,
        time_end=None,
        vertex_times=[0.25, 0.5, 0.75],
        facts={"visible": True, "note": "bus · Särö"},
    )


def test_mark_get_brings_the_image_an_edit_validates_against(annotator, django_assert_num_queries) -> None:
    mark = _trajectory(annotator)
    with django_assert_num_queries(2):  # the roles, then the mark joined with its image
        got = selectors.mark_get(user=annotator, mark_id=mark.id)
        image = got.satellite_image
        expected = mark.satellite_image
        assert (image.width, image.height, image.georef) == (expected.width, expected.height, GEOREF)


def test_others_see_a_mark_only_once_it_is_submitted(annotator, other_annotator, reviewer, admin) -> None:
    mark = _trajectory(annotator)
    with pytest.raises(Http404):
        selectors.mark_get(user=other_annotator, mark_id=mark.id)
    with pytest.raises(Http404):
        selectors.mark_get(user=reviewer, mark_id=mark.id)
    assert selectors.mark_get(user=admin, mark_id=mark.id) == mark
    item = ItemFactory(scene=mark.scene, author=annotator, marks=[mark], state=Item.State.IN_REVIEW)
    # submitted, but not to this reviewer: still not theirs to see
    with pytest.raises(Http404):
        selectors.mark_get(user=reviewer, mark_id=mark.id)
    reviewer_answered(item, reviewer)
    assert selectors.mark_get(user=reviewer, mark_id=mark.id) == mark
    with pytest.raises(Http404):
        selectors.mark_get(user=other_annotator, mark_id=mark.id)
    assert list(selectors.marks_for_scene(user=other_annotator, scene=mark.scene)) == []
    assert list(selectors.marks_for_scene(user=reviewer, scene=mark.scene)) == [mark]


def test_a_save_writes_every_field_and_keeps_the_rest(annotator) -> None:
    mark = _trajectory(annotator)
    changes = {"facts": {"visible": False, "note": "hidden · under a tree"}, "time_end": 1.0}
    saved = mark_update(mark=selectors.mark_get(user=annotator, mark_id=mark.id), version=1, changes=changes)
    stored = Mark.objects.get(id=mark.id)
    assert (stored.version, stored.facts, stored.time_end) == (2, changes["facts"], 1.0)
    assert stored.vertex_times == [0.25, 0.5, 0.75] and stored.geometry == mark.geometry
    assert stored.updated_at == saved.updated_at and stored.updated_at > mark.updated_at
    assert stored.updated_at.tzinfo is not None


def test_mark_for_edit_is_one_query_for_the_author_and_none_for_others(
    annotator, other_annotator, admin, django_assert_num_queries
) -> None:
    mark = _trajectory(annotator)
    with django_assert_num_queries(1):
        got = selectors.mark_for_edit(user=annotator, mark_id=mark.id)
        assert got is not None and got.satellite_image.width == mark.satellite_image.width
        assert got.has_open_items is False  # type: ignore[attr-defined]
    assert selectors.mark_for_edit(user=admin, mark_id=mark.id) is None  # admins see it, do not change it
    assert selectors.mark_for_edit(user=other_annotator, mark_id=mark.id) is None
    mark.scene.assignments.all().delete()
    assert selectors.mark_for_edit(user=annotator, mark_id=mark.id) is None  # no longer assigned


def test_a_save_marks_items_stale_only_when_some_are_open(annotator) -> None:
    mark = _trajectory(annotator)
    draft = ItemFactory(scene=mark.scene, author=annotator, marks=[mark])
    editable = selectors.mark_for_edit(user=annotator, mark_id=mark.id)
    assert editable is not None and editable.has_open_items is True  # type: ignore[attr-defined]
    mark_update(mark=editable, version=1, changes={"label": "car"})
    assert Item.objects.get(id=draft.id).stale


def test_the_copy_on_edit_check_reads_each_marks_links_not_the_authors_items(annotator) -> None:
    # given an annotator with items on a scene's marks (at the benchmark's size ~900 of them)
    from django.db import connection

    if connection.vendor != "sqlite":
        pytest.skip("SQLite's query plan; PostgreSQL plans the check from the mark by its statistics")
    scene = SceneFactory(annotators=[annotator])
    ItemFactory(scene=scene, author=annotator, marks=[MarkFactory(scene=scene, author=annotator)])

    # when the scene's marks are read, then the plan looks each mark's links up by the mark index and
    # never walks the author's items through the author index (once per mark)
    sql, params = selectors.marks_for_scene(user=annotator, scene=scene).query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN QUERY PLAN " + sql, params)
        plan = " | ".join(str(row[-1]) for row in cursor.fetchall())
    assert "annotator_item_marks_mark_id" in plan, plan
    assert "annotator_item_author_id" not in plan, plan
