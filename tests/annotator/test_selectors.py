"""annotator.selectors: the autosave read written out in SQL gives what the ORM gives."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.http import Http404
from django.test.utils import CaptureQueriesContext

from annotator import selectors
from annotator.models import Item, Mark
from annotator.services import mark_update
from tests.factories import ItemFactory, MarkFactory, SatelliteImageFactory, SceneFactory

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


def test_mark_for_edit_reads_what_the_orm_reads(annotator) -> None:
    mark = _trajectory(annotator)
    expected = Mark.objects.select_related("satellite_image").get(id=mark.id)
    with CaptureQueriesContext(connection) as queries:
        got = selectors.mark_for_edit(user=annotator, mark_id=mark.id)
    assert len(queries) == 1
    for field in Mark._meta.concrete_fields:
        assert getattr(got, field.attname) == getattr(expected, field.attname), field.name
    image = got.satellite_image
    assert (image.id, image.width, image.height, image.georef) == (
        expected.satellite_image.id,
        expected.satellite_image.width,
        expected.satellite_image.height,
        GEOREF,
    )


def test_mark_for_edit_by_others_answers_as_mark_get(annotator, other_annotator, reviewer) -> None:
    mark = _trajectory(annotator)
    with pytest.raises(Http404):
        selectors.mark_for_edit(user=other_annotator, mark_id=mark.id)
    # a reviewer sees a mark of an item in review, and the service then refuses the edit
    ItemFactory(scene=mark.scene, author=annotator, marks=[mark], state=Item.State.IN_REVIEW)
    seen = selectors.mark_for_edit(user=reviewer, mark_id=mark.id)
    with pytest.raises(PermissionDenied):
        mark_update(mark=seen, user=reviewer, version=seen.version, changes={"label": "car"})


def test_a_save_writes_what_the_orm_would_write(annotator) -> None:
    mark = _trajectory(annotator)
    changes = {"facts": {"visible": False, "note": "hidden · under a tree"}, "time_end": 1.0}
    saved = mark_update(
        mark=selectors.mark_for_edit(user=annotator, mark_id=mark.id), user=annotator, version=1, changes=changes
    )
    stored = Mark.objects.get(id=mark.id)
    assert (stored.version, stored.facts, stored.time_end) == (2, changes["facts"], 1.0)
    assert stored.vertex_times == [0.25, 0.5, 0.75] and stored.geometry == mark.geometry
    assert stored.updated_at == saved.updated_at and stored.updated_at > mark.updated_at
    assert stored.updated_at.tzinfo is not None
