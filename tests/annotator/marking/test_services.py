"""annotator.marking.services: create, update with optimistic concurrency, delete."""

from __future__ import annotations

import uuid

import pytest
from django.core.exceptions import ValidationError

from annotator.exceptions import Conflict, StaleWrite
from annotator.marking.services import mark_create, mark_delete, mark_update
from annotator.models import Item, Mark
from tests.factories import SQUARE, ItemFactory, MarkFactory, ProjectFactory, SatelliteImageFactory, SceneFactory

pytestmark = pytest.mark.django_db

TRACK = {"type": "LineString", "coordinates": [[10, 10], [50, 20], [90, 60]]}


def _create(scene, author, **overrides):  # type: ignore[no-untyped-def]
    fields = {
        "kind": "polygon",
        "geometry": SQUARE,
        "label": "  Pond ",
        "time_start": 0.5,
        "time_end": 1.5,
        "facts": {"visible": True},
        **overrides,
    }
    return mark_create(scene=scene, author=author, satellite_image=scene.satellite_images.first(), **fields)


def test_mark_create_stores_the_mark(annotator) -> None:
    # given a scene with a 2 s video and a 200 x 100 image
    scene = SceneFactory(annotators=[annotator])

    # when a region is drawn
    mark = _create(scene, annotator)

    # then the row carries it, label trimmed, at version 1
    row = Mark.objects.get(id=mark.id)
    assert (row.kind, row.label, row.time_start, row.time_end, row.version) == ("polygon", "pond", 0.5, 1.5, 1)
    # the ring stored closed (GeoJSON's rule), the same vertices otherwise
    ring = SQUARE["coordinates"][0]
    assert row.geometry == {"type": "Polygon", "coordinates": [[*ring, ring[0]]]} and row.facts == {"visible": True}
    assert (row.author, row.scene, row.satellite_image) == (annotator, scene, scene.satellite_images.first())


def test_trajectory_with_vertex_times(annotator) -> None:
    scene = SceneFactory()
    mark = _create(scene, annotator, kind="polyline", geometry=TRACK, time_end=None, vertex_times=[0.0, 0.5, 1.5])
    assert Mark.objects.get(id=mark.id).vertex_times == [0.0, 0.5, 1.5]


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"time_start": 1.5, "time_end": 0.5}, "time_end", "the interval ends (0.50 s) before it starts (1.50 s)"),
        ({"time_start": -0.1, "time_end": None}, "time_start", "time must be 0 s or later"),
        ({"time_start": 2.5, "time_end": None}, "time_start", "2.50 s is past the end of the video (2.00 s)"),
        ({"time_end": 3.0}, "time_end", "3.00 s is past the end of the video (2.00 s)"),
        (
            {"vertex_times": [0.0, 1.0, 2.0, 3.0]},
            "vertex_times",
            "only trajectories (polylines) carry per-vertex times",
        ),
        (
            {"kind": "polyline", "geometry": TRACK, "vertex_times": [0.0, 1.0]},
            "vertex_times",
            "give one time per vertex",
        ),
        (
            {"kind": "polyline", "geometry": TRACK, "vertex_times": [0.0, 1.0, 0.5]},
            "vertex_times",
            "vertex times must not go backwards",
        ),
        (
            {"kind": "polyline", "geometry": TRACK, "time_end": None, "vertex_times": [0.0, 1.0, 1e308]},
            "vertex_times",
            "vertex times must lie between 0 s and 2.00 s of the video",
        ),
        (
            {"geometry": {"type": "Polygon", "coordinates": [[[0, 0], [250, 0], [0, 50]]]}},
            "geometry",
            "vertex 1 (250.0, 0.0) is outside the 200x100 px satellite image",
        ),
    ],
)
def test_mark_create_refuses(annotator, overrides: dict, field: str, message: str) -> None:
    # given a scene / when a bad mark is drawn / then the field says why and nothing is stored
    scene = SceneFactory()
    with pytest.raises(ValidationError) as err:
        _create(scene, annotator, **overrides)
    assert err.value.message_dict == {field: [message]}
    assert Mark.objects.count() == 0


def test_mark_create_on_an_image_of_another_scene(annotator) -> None:
    scene = SceneFactory()
    with pytest.raises(ValidationError) as err:
        mark_create(
            scene=scene,
            author=annotator,
            satellite_image=SatelliteImageFactory(),
            kind="point",
            geometry={"type": "Point", "coordinates": [1, 1]},
            label="car",
            time_start=0,
        )
    assert err.value.message_dict == {"satellite_image": ["this image does not belong to the scene"]}


def test_unprobed_video_does_not_limit_times(annotator) -> None:
    # given a video whose duration is not known yet / then times are not checked against it
    scene = SceneFactory(video__unprobed=True)
    assert _create(scene, annotator, time_start=50.0, time_end=60.0).time_end == 60.0


def test_mark_update_with_current_version(annotator) -> None:
    # given a mark at version 1
    mark = MarkFactory(author=annotator)

    # when it is moved with version 1
    moved = {"type": "Polygon", "coordinates": [[[20, 20], [80, 20], [80, 60]]]}
    updated = mark_update(mark=mark, version=1, changes={"geometry": moved, "label": " lake "})

    # then the row has the change and version 2; untouched fields keep their values
    row = Mark.objects.get(id=mark.id)
    closed = {"type": "Polygon", "coordinates": [[[20, 20], [80, 20], [80, 60], [20, 20]]]}
    assert (row.geometry, row.label, row.version) == (closed, "lake", 2)
    assert (row.time_start, row.time_end, row.facts) == (0.0, 1.5, {"visible": True})
    assert updated.version == 2


def test_mark_update_with_stale_version_raises_and_changes_nothing(annotator) -> None:
    # given a mark someone already moved to version 2
    mark = MarkFactory(author=annotator)
    mark_update(mark=mark, version=1, changes={"label": "car"})

    # when a second edit still carries version 1
    with pytest.raises(StaleWrite) as err:
        mark_update(mark=mark, version=1, changes={"label": "bus"})

    # then the current mark comes with the error and the row keeps the first edit
    assert (err.value.current.id, err.value.current.version, err.value.current.label) == (mark.id, 2, "car")
    assert Mark.objects.get(id=mark.id).label == "car"


def test_mark_update_validates_the_merged_mark(annotator) -> None:
    # given a mark spanning 0-1.5 s / when only the start moves past the end
    mark = MarkFactory(author=annotator)
    with pytest.raises(ValidationError) as err:
        mark_update(mark=mark, version=1, changes={"time_start": 1.8})

    # then the interval is refused and the row is unchanged
    assert list(err.value.message_dict) == ["time_end"]
    assert Mark.objects.get(id=mark.id).version == 1


@pytest.mark.parametrize("state", [Item.State.IN_REVIEW, Item.State.APPROVED])
def test_marks_of_items_under_review_are_frozen(annotator, state: str) -> None:
    mark = MarkFactory(author=annotator)
    ItemFactory(scene=mark.scene, author=annotator, marks=[mark], state=state)
    with pytest.raises(Conflict):
        mark_update(mark=mark, version=1, changes={"label": "truck"})
    assert Mark.objects.get(id=mark.id).version == 1


def test_mark_delete_removes_the_mark_and_its_drafts(annotator) -> None:
    # given a mark with a draft item built from it
    mark = MarkFactory(author=annotator)
    draft = ItemFactory(scene=mark.scene, author=annotator, marks=[mark])

    # when deleted with the current version
    mark_delete(mark=mark, version=1)

    # then mark and draft are gone
    assert not Mark.objects.filter(id=mark.id).exists()
    assert not Item.objects.filter(id=draft.id).exists()


def test_mark_delete_with_stale_version(annotator) -> None:
    mark = MarkFactory(author=annotator)
    mark_update(mark=mark, version=1, changes={"label": "van"})
    with pytest.raises(StaleWrite) as err:
        mark_delete(mark=mark, version=1)
    assert err.value.current.version == 2
    assert Mark.objects.filter(id=mark.id).exists()


@pytest.mark.parametrize("state", [Item.State.IN_REVIEW, Item.State.APPROVED])
def test_mark_of_a_submitted_item_cannot_be_deleted(annotator, state: str) -> None:
    mark = MarkFactory(author=annotator)
    ItemFactory(scene=mark.scene, author=annotator, marks=[mark], state=state)
    with pytest.raises(Conflict):
        mark_delete(mark=mark, version=1)
    assert Mark.objects.filter(id=mark.id).exists()


def test_label_must_come_from_the_label_set_of_the_scenes_project(annotator) -> None:
    # given a project whose label set is three words, and a mark on one of its scenes
    rows = [{"name": n, "kind": k} for n, k in (("car", "instance"), ("bus", "instance"), ("central island", "region"))]
    scene = SceneFactory(project=ProjectFactory(labels=rows), annotators=[annotator])
    mark = MarkFactory(scene=scene, author=annotator, label="car")

    # then a label outside it is a field error, and spacing and case follow the set
    with pytest.raises(ValidationError) as err:
        mark_update(mark=mark, version=1, changes={"label": "spaceship"})
    assert (
        "'spaceship' is not in the project's label set (car, bus, central island" in err.value.message_dict["label"][0]
    )
    updated = mark_update(mark=mark, version=1, changes={"label": " Central   Island "})
    assert updated.label == "central island"
    # and a label of another project's set is refused here ("road" is in the default project's)
    with pytest.raises(ValidationError):
        mark_create(scene=scene, author=annotator, satellite_image=scene.satellite_images.get(), kind="point",
                    geometry={"type": "Point", "coordinates": [5, 5]}, label="road", time_start=0)  # fmt: skip


def test_items_of_other_marks_do_not_freeze_this_one(annotator) -> None:
    # given items in review elsewhere, one of them without marks at all
    mark = MarkFactory(author=annotator)
    ItemFactory(scene=mark.scene, author=annotator, state="in_review")
    ItemFactory(scene=mark.scene, author=annotator, marks=[MarkFactory(scene=mark.scene, author=annotator)],
                state="approved")  # fmt: skip

    # then this mark still saves
    assert mark_update(mark=mark, version=1, changes={"label": "car"}).version == 2


def test_a_write_that_lost_the_race_to_a_delete_is_not_found(annotator) -> None:
    # given a mark read by one request and deleted by another before the first writes
    from django.http import Http404

    mark = MarkFactory(author=annotator)
    read_before = Mark.objects.get(id=mark.id)
    mark_delete(mark=Mark.objects.get(id=mark.id), version=1)

    # then the late edit and the late delete are 404 (not a server error), and nothing reappears
    with pytest.raises(Http404, match="this mark was deleted"):
        mark_update(mark=read_before, version=1, changes={"label": "bus"})
    with pytest.raises(Http404, match="this mark was deleted"):
        mark_delete(mark=read_before, version=1)
    assert not Mark.objects.filter(id=mark.id).exists()


@pytest.mark.django_db(transaction=True)
def test_a_new_mark_is_checked_before_the_write_transaction_opens(annotator) -> None:
    # given a scene, and every statement recorded with whether a transaction was open
    from django.db import connection

    scene = SceneFactory(annotators=[annotator])
    seen: list[tuple[str, bool]] = []

    def record(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        seen.append((sql.split()[0].upper(), connection.in_atomic_block))
        return execute(sql, params, many, context)

    # when a mark is created
    with connection.execute_wrapper(record):
        _create(scene, annotator)

    # then the checks read outside any transaction (on SQLite one holds the writer lock every save
    # waits on), and the INSERT is a statement of its own: no transaction, no read of the client key
    assert [kind for kind, atomic in seen if atomic] == []
    assert [kind for kind, _ in seen] == ["SELECT"] * (len(seen) - 1) + ["INSERT"]


@pytest.mark.django_db(transaction=True)
def test_a_create_sent_again_outside_a_transaction_returns_the_first_mark(annotator) -> None:
    # given a mark created with a client key in autocommit (as an API request makes it)
    from django.db import connection

    scene = SceneFactory(annotators=[annotator])
    key = uuid.uuid4()
    first = _create(scene, annotator, client_key=key)
    assert first.replayed is False and not connection.in_atomic_block

    # when the same create comes again: the unique key refuses the INSERT, which tells the retry apart
    again = _create(scene, annotator, client_key=key)

    # then it is the first mark, one row exists, and the connection goes on working
    assert (again.id, again.replayed) == (first.id, True)
    assert Mark.objects.filter(client_key=key).count() == 1
    # a create without a key on the same connection still makes a new mark
    assert _create(scene, annotator).id != first.id


def test_a_retry_whose_payload_no_longer_passes_returns_the_mark_it_made(annotator) -> None:
    # given a mark made with a client key, and then its label removed from the project's set
    project = ProjectFactory(labels=[{"name": "car", "kind": "instance"}, {"name": "pond", "kind": "region"}])
    scene = SceneFactory(annotators=[annotator], project=project)
    key = uuid.uuid4()
    first = _create(scene, annotator, client_key=key)
    project.labels = project.labels[:1]
    project.save(update_fields=["labels"])
    scene.refresh_from_db()

    # when the same create comes again, it is the mark it made (the payload was valid then)
    again = _create(scene, annotator, client_key=key)
    assert (again.id, again.replayed) == (first.id, True)

    # and a new create with that label is still refused
    with pytest.raises(ValidationError):
        _create(scene, annotator, client_key=uuid.uuid4())
