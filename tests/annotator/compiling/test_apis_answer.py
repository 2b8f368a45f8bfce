"""What a compile answers (POST /api/items/): the item as its own page shows it, from the objects the
service made (its marks, its model view) without reading them again, and the stored model view when
Celery rendered it in-process."""

from __future__ import annotations

from typing import Any

import pytest

from annotator.models import Item, ModelView
from tests.annotator.compiling.test_compile_each_task import Marks, _point, _poly

pytestmark = pytest.mark.django_db
T = Item.Task


def test_a_compiled_item_is_answered_as_its_own_page_shows_it(annotator: Any, api: Any) -> None:
    # given a target and a region, compiled through the API (answered from the new object)
    m = Marks(annotator)
    region = m("polygon", _poly(10, 10, 40, 40), "pier", facts={"visible": True})
    target = m("point", _point(80, 80), "car", facts={"interaction": "stays_away"})
    client = api(annotator)
    body = {"task": T.REGION_INTERACTION, "mark_ids": [target.id, region.id], "active_seconds": 30}
    created = client.post("/api/items/", body, format="json")
    assert created.status_code == 201, created.content

    # then the answer is the item as read back, field for field, marks in the order given
    assert created.json() == client.get(f"/api/items/{created.json()['id']}/").json()
    assert created.json()["mark_ids"] == [target.id, region.id]
    assert created.json()["approvals"] == 0 and created.json()["model_view"]["state"] == "pending"


@pytest.mark.django_db(transaction=True)  # commits for real: the render runs when the compile commits
def test_a_compile_answers_the_stored_model_view_when_it_was_rendered_in_process(annotator: Any, api: Any) -> None:
    # given Celery running tasks in-process (as the browser tests do), so the view renders at commit
    from annotator.compiling.tasks import model_views_task

    conf = model_views_task.app.conf
    previous, conf.task_always_eager = conf.task_always_eager, True
    try:
        m = Marks(annotator)
        region = m("polygon", _poly(10, 10, 40, 40), "pier", facts={"visible": True})
        target = m("point", _point(80, 80), "car", facts={"interaction": "stays_away"})
        body = {"task": T.REGION_INTERACTION, "mark_ids": [target.id, region.id]}
        # when it is compiled
        created = api(annotator).post("/api/items/", body, format="json")
    finally:
        conf.task_always_eager = previous
    # then the answer shows the view as stored, not the pending row the service made
    assert created.status_code == 201, created.content
    stored = ModelView.objects.get(item_id=created.json()["id"])
    assert stored.state != ModelView.State.PENDING
    assert created.json()["model_view"]["state"] == stored.state


def test_a_compile_reads_its_marks_once_for_the_answer(annotator: Any, api: Any, django_assert_num_queries) -> None:
    # given a target and a region, and a first compile (which may make the built-in phrasings)
    m = Marks(annotator)
    region = m("polygon", _poly(10, 10, 40, 40), "pier", facts={"visible": True})
    target = m("point", _point(80, 80), "car", facts={"interaction": "stays_away"})
    client = api(annotator)
    body = {"task": T.REGION_INTERACTION, "mark_ids": [target.id, region.id]}
    assert client.post("/api/items/", body, format="json").status_code == 201
    # when it is compiled again (the test client's user keeps its roles): the marks with whether the
    # scene is still assigned, the phrasings; the item, its marks (added: a new item has none to
    # compare with), its event and its model view, between SAVEPOINT and RELEASE. The answer reads
    # nothing more: its marks are those just linked, its model view the pending row just made.
    with django_assert_num_queries(8):
        again = client.post("/api/items/", body, format="json")
    assert again.status_code == 201, again.content
    assert again.json()["mark_ids"] == [target.id, region.id]
    assert again.json()["satellite_image"] == region.satellite_image_id
