"""Reads of the marks API: query counts that do not grow with rows or copies, conditional reads
(ETag / 304), and reads and saves that leave the scene's media alone."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import ItemFactory, MarkFactory, SatelliteImageFactory, SceneFactory

pytestmark = pytest.mark.django_db

POINT = {"type": "Point", "coordinates": [20, 30]}


def _count(client, url: str) -> int:  # type: ignore[no-untyped-def]
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url)  # the first request also loads the user's roles, cached afterwards
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_marks_list_queries_do_not_grow(annotator, api) -> None:
    scene = SceneFactory(annotators=[annotator])
    client, url = api(annotator), f"/api/scenes/{scene.id}/marks/"
    MarkFactory(scene=scene, author=annotator)
    few = _count(client, url)
    for _ in range(10):
        MarkFactory(scene=scene, author=annotator)
    assert _count(client, url) == few <= 6


def test_scene_list_queries_do_not_grow(annotator, api) -> None:
    client = api(annotator)
    SceneFactory(annotators=[annotator])
    few = _count(client, "/api/scenes/")
    for _ in range(6):
        SceneFactory(annotators=[annotator])
    assert _count(client, "/api/scenes/") == few <= 10


def test_item_list_queries_do_not_grow(annotator, api) -> None:
    scene = SceneFactory(annotators=[annotator])
    client = api(annotator)
    ItemFactory(scene=scene, author=annotator, marks=[MarkFactory(scene=scene, author=annotator)])
    few = _count(client, "/api/items/")
    for _ in range(6):
        ItemFactory(scene=scene, author=annotator, marks=[MarkFactory(scene=scene, author=annotator)])
    assert _count(client, "/api/items/") == few <= 8


def test_marks_list_queries_do_not_grow_with_copies(annotator, api) -> None:
    scene = SceneFactory(annotators=[annotator])
    client, url = api(annotator), f"/api/scenes/{scene.id}/marks/"
    MarkFactory(scene=scene, author=annotator)
    few = _count(client, url)
    for _ in range(5):
        mark = MarkFactory(scene=scene, author=annotator, locked=True)
        ItemFactory(scene=scene, author=annotator, marks=[mark], state="approved")
        ItemFactory(scene=scene, author=annotator, marks=[mark], state="rejected")
    assert _count(client, url) == few


def test_marks_read_and_save_leave_the_scenes_media_alone(annotator, api) -> None:
    # given a scene showing several satellite images, as the benchmark's scenes do (29 on average)
    scene = SceneFactory(annotators=[annotator])
    scene.satellite_images.add(*[SatelliteImageFactory() for _ in range(3)])
    MarkFactory(scene=scene, author=annotator)
    client, url = api(annotator), f"/api/scenes/{scene.id}/marks/"

    # when the workspace reads the marks and saves a new one
    with CaptureQueriesContext(connection) as read:
        assert client.get(url).status_code == 200
    with CaptureQueriesContext(connection) as save:
        body = {"satellite_image": scene.satellite_images.first().id, "kind": "point", "geometry": POINT,
                "label": "car", "time_start": 0.5}  # fmt: skip
        assert client.post(url, body, format="json").status_code == 201

    # then neither read the media jobs the scene page shows, nor the images' outlines and control points
    sql = " ".join(q["sql"] for q in [*read.captured_queries, *save.captured_queries])
    assert "annotator_mediajob" not in sql
    assert "valid_area" not in " ".join(q["sql"] for q in read.captured_queries)


def test_marks_list_answers_304_while_nothing_changed(annotator, api) -> None:
    # given a scene's marks read once
    scene = SceneFactory(annotators=[annotator])
    mark = MarkFactory(scene=scene, author=annotator)
    client, url = api(annotator), f"/api/scenes/{scene.id}/marks/"
    first = client.get(url)
    tag = first["ETag"]

    # then the same read with that tag is a 304 without a body, and private to the user
    again = client.get(url, HTTP_IF_NONE_MATCH=tag)
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == tag and "private" in again["Cache-Control"]

    # and once a mark changes the read is a 200 with the new mark and another tag
    assert client.patch(f"/api/marks/{mark.id}/", {"version": 1, "label": "bus"}, format="json").status_code == 200
    changed = client.get(url, HTTP_IF_NONE_MATCH=tag)
    assert changed.status_code == 200 and changed["ETag"] != tag
    assert changed.json()["results"][0]["label"] == "bus"
