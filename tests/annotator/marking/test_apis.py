"""annotator.marking.apis (and the other annotator APIs): roles and ownership checked on the
server, field errors, 409s, GeoJSON-like features, and list endpoints whose query count does not grow with the rows."""

from __future__ import annotations

import uuid

import pytest

from annotator.access.roles import ADMIN, ANNOTATOR
from annotator.models import Mark
from tests.factories import (
    AnnotatorFactory,
    ItemFactory,
    MarkFactory,
    ProjectFactory,
    SatelliteImageFactory,
    SceneFactory,
    reviewer_answered,
)

pytestmark = pytest.mark.django_db

POINT = {"type": "Point", "coordinates": [20, 30]}
BOWTIE = {"type": "Polygon", "coordinates": [[[0, 0], [50, 50], [50, 0], [0, 50]]]}
WIDER_THAN_THE_IMAGE = {"type": "Polygon", "coordinates": [[[0, 0], [500, 0], [0, 50]]]}  # images are 200 px wide


def _new_mark(scene, **overrides):  # type: ignore[no-untyped-def]
    image = scene.satellite_images.get()
    body = {"satellite_image": image.id, "kind": "point", "geometry": POINT, "label": "car", "time_start": 0.5}
    return {**body, **overrides}


# ---- who may read and write marks ------------------------------------------------------------


def test_annotator_cannot_read_another_annotators_marks(annotator, other_annotator, api) -> None:
    # given a scene assigned to both, with one mark each
    scene = SceneFactory(annotators=[annotator, other_annotator])
    mine = MarkFactory(scene=scene, author=annotator)
    theirs = MarkFactory(scene=scene, author=other_annotator)

    # then the list shows only mine, and theirs is not found
    client = api(annotator)
    assert [m["id"] for m in client.get(f"/api/scenes/{scene.id}/marks/").json()["results"]] == [mine.id]
    assert client.get(f"/api/marks/{theirs.id}/").status_code == 404
    assert client.patch(f"/api/marks/{theirs.id}/", {"version": 1, "label": "bus"}, format="json").status_code == 404


def test_annotator_cannot_see_a_scene_not_assigned(annotator, api) -> None:
    scene = SceneFactory()
    assert api(annotator).get(f"/api/scenes/{scene.id}/").status_code == 404
    assert api(annotator).post(f"/api/scenes/{scene.id}/marks/", {}, format="json").status_code in (403, 404)


def test_annotator_cannot_read_any_review(annotator, api) -> None:
    assert api(annotator).get("/api/reviews/").status_code == 403
    assert api(annotator).get("/api/review/queue/").status_code == 403


def test_reviewer_cannot_edit_or_create_marks(annotator, reviewer, api) -> None:
    # given a mark of a submitted item, which the reviewer may see
    scene = SceneFactory(annotators=[annotator])
    mark = MarkFactory(scene=scene, author=annotator)
    item = ItemFactory(scene=scene, author=annotator, marks=[mark], state="in_review")
    reviewer_answered(item, reviewer)
    client = api(reviewer)
    assert client.get(f"/api/marks/{mark.id}/").status_code == 200

    # then every write is refused and nothing changed
    assert client.patch(f"/api/marks/{mark.id}/", {"version": 1, "label": "bus"}, format="json").status_code == 403
    assert client.delete(f"/api/marks/{mark.id}/", {"version": 1}, format="json").status_code == 403
    assert client.post(f"/api/scenes/{scene.id}/marks/", _new_mark(scene), format="json").status_code in (403, 404)
    mark.refresh_from_db()
    assert (mark.label, mark.version) == ("roundabout", 1)


def test_only_an_admin_can_release(annotator, reviewer, admin, api) -> None:
    for user in (annotator, reviewer):
        assert api(user).post("/api/releases/", {"version": "v1"}, format="json").status_code == 403
    assert api().post("/api/releases/", {"version": "v1"}, format="json").status_code in (401, 403)
    response = api(admin).post("/api/releases/", {"version": "v1"}, format="json")
    assert response.status_code in (201, 400, 409), response.content  # allowed; may refuse an empty set


def test_only_an_admin_imports_scenes(annotator, reviewer, api) -> None:
    for user in (annotator, reviewer):
        assert api(user).post("/api/scenes/", {}, format="multipart").status_code == 403


# ---- validation, conflicts, features ---------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"geometry": {"type": "Point", "coordinates": [500, 30]}}, "geometry", "outside the 200x100 px"),
        (
            {"kind": "polygon", "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [50, 50], [50, 0], [0, 50]]]}},
            "geometry",
            "not a simple polygon",
        ),
        ({"time_start": 1.5, "time_end": 1.0}, "time_end", "before it starts"),
        (
            {"kind": "ellipse", "geometry": {"type": "Ellipse", "center": [50, 50], "radii": [0, 5]}},
            "geometry",
            "radii",
        ),
    ],
)
def test_bad_mark_is_a_field_error(annotator, api, overrides: dict, field: str, message: str) -> None:
    scene = SceneFactory(annotators=[annotator])
    response = api(annotator).post(f"/api/scenes/{scene.id}/marks/", _new_mark(scene, **overrides), format="json")
    assert response.status_code == 400
    assert message in " ".join(response.json()[field])
    assert not Mark.objects.exists()


@pytest.mark.parametrize(
    "body, field, message",
    [
        ({"label": "bus"}, "version", "required"),
        ({"version": 0}, "version", "greater than or equal to 1"),
        ({"version": 1, "time_end": "soon"}, "time_end", "valid number"),
        ({"version": 1, "time_start": 1.2, "time_end": 0.4}, "time_end", "before it starts"),
        ({"version": 1, "geometry": BOWTIE}, "geometry", "not a simple polygon"),
        ({"version": 1, "geometry": WIDER_THAN_THE_IMAGE}, "geometry", "outside"),
        ([1, 2], "non_field_errors", "Expected a dictionary"),
    ],
)
def test_bad_edit_is_a_field_error_and_changes_nothing(annotator, api, body, field: str, message: str) -> None:
    mark = MarkFactory(scene=SceneFactory(annotators=[annotator]), author=annotator)
    client = api(annotator)
    for _ in range(2):  # the same answer again: nothing is kept between requests
        response = client.patch(f"/api/marks/{mark.id}/", body, format="json")
        assert response.status_code == 400
        assert message in " ".join(response.json()[field])
    stored = Mark.objects.get(id=mark.id)
    assert (stored.version, stored.geometry, stored.time_end) == (1, mark.geometry, mark.time_end)


def test_stale_write_is_a_409_with_the_current_mark(annotator, api) -> None:
    scene = SceneFactory(annotators=[annotator])
    mark = MarkFactory(scene=scene, author=annotator)
    client = api(annotator)
    assert client.patch(f"/api/marks/{mark.id}/", {"version": 1, "label": "car"}, format="json").status_code == 200
    stale = client.patch(f"/api/marks/{mark.id}/", {"version": 1, "label": "bus"}, format="json")
    assert stale.status_code == 409
    assert (stale.json()["current"]["label"], stale.json()["current"]["version"]) == ("car", 2)


def test_a_create_sent_again_with_its_client_key_makes_one_mark(annotator, other_annotator, api) -> None:
    # given a create whose answer was lost: the client sends it again with the same key
    scene = SceneFactory(annotators=[annotator, other_annotator])
    key = str(uuid.uuid4())
    first = api(annotator).post(f"/api/scenes/{scene.id}/marks/", _new_mark(scene, client_key=key), format="json")
    again = api(annotator).post(f"/api/scenes/{scene.id}/marks/", _new_mark(scene, client_key=key), format="json")
    # then the second answer is the first mark (200, not 201), and one row exists
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"] and again.json()["client_key"] == key
    assert list(Mark.objects.filter(client_key=key).values_list("id", flat=True)) == [first.json()["id"]]
    # a key is the author's own: another annotator's equal key makes their own mark
    theirs = api(other_annotator).post(
        f"/api/scenes/{scene.id}/marks/", _new_mark(scene, client_key=key), format="json"
    )
    assert theirs.status_code == 201 and theirs.json()["id"] != first.json()["id"]
    # and marks sent without a key stay independent
    plain = [api(annotator).post(f"/api/scenes/{scene.id}/marks/", _new_mark(scene), format="json") for _ in range(2)]
    assert [r.status_code for r in plain] == [201, 201] and plain[0].json()["id"] != plain[1].json()["id"]


def test_a_client_key_used_on_another_scene_is_a_field_error(annotator, api) -> None:
    one, two = SceneFactory(annotators=[annotator]), SceneFactory(annotators=[annotator])
    key = str(uuid.uuid4())
    assert (
        api(annotator).post(f"/api/scenes/{one.id}/marks/", _new_mark(one, client_key=key), format="json").status_code
        == 201
    )
    moved = api(annotator).post(f"/api/scenes/{two.id}/marks/", _new_mark(two, client_key=key), format="json")
    assert moved.status_code == 400 and "another scene" in moved.json()["client_key"][0]
    assert Mark.objects.filter(scene=two).count() == 0


def test_marks_as_features_in_and_out(annotator, api) -> None:
    # given a mark posted as a GeoJSON-like Feature
    scene = SceneFactory(annotators=[annotator])
    image = scene.satellite_images.get()
    feature = {
        "type": "Feature",
        "geometry": POINT,
        "properties": {"satellite_image": image.id, "kind": "point", "label": "car", "time_start": 0.5},
    }
    client = api(annotator)
    created = client.post(f"/api/scenes/{scene.id}/marks/", feature, format="json")
    assert created.status_code == 201, created.content

    # then the collection returns it as a Feature in pixels; no lat/lon without a georeference
    body = client.get(f"/api/scenes/{scene.id}/marks/?as=features").json()
    [out] = body["features"]
    assert body["type"] == "FeatureCollection" and out["type"] == "Feature"
    assert (out["id"], out["geometry"], out["properties"]["label"]) == (created.json()["id"], POINT, "car")
    assert out["geometry_lonlat"] is None


def test_marks_carry_lat_lon_when_the_image_is_georeferenced(annotator, api) -> None:
    # given an image georeferenced by its corners (a north-up 200x100 px box)
    scene = SceneFactory(annotators=[annotator])
    image = scene.satellite_images.get()
    from media_tools.geo import georef_from_corners

    corners = {"tl": (57.49, 12.00), "tr": (57.49, 12.02), "br": (57.48, 12.02), "bl": (57.48, 12.00)}
    image.georef = georef_from_corners(corners, width=200, height=100).to_dict()
    image.save()
    MarkFactory(scene=scene, author=annotator, kind="point", geometry={"type": "Point", "coordinates": [100, 50]})
    # and a second image of the scene without a georeference, with two marks listed after it
    plain = SatelliteImageFactory()
    scene.satellite_images.add(plain)
    for x in (10, 20):
        point = {"type": "Point", "coordinates": [x, 5]}
        MarkFactory(scene=scene, author=annotator, satellite_image=plain, geometry=point)

    # then the mark's centre pixel is the box's centre in lat/lon, and the other image's marks have none
    first, *others = api(annotator).get(f"/api/scenes/{scene.id}/marks/").json()["results"]
    lon, lat = first["lonlat"]["coordinates"]
    assert lat == pytest.approx(57.485, abs=1e-4) and lon == pytest.approx(12.01, abs=1e-4)
    assert [m["lonlat"] for m in others] == [None, None]
    # and with a mark of every kind on the georeferenced image, the list (projected per image in one
    # call) answers each as the mark's own read does
    shapes = {
        "polyline": {"type": "LineString", "coordinates": [[10, 10], [50, 20], [90, 60]]},
        "polygon": {"type": "Polygon", "coordinates": [[[10, 10], [60, 10], [60, 60], [10, 10]]]},
        "ellipse": {"type": "Ellipse", "center": [100, 50], "radii": [30, 12], "rotation": 25},
    }
    for kind, geometry in shapes.items():
        MarkFactory(scene=scene, author=annotator, kind=kind, geometry=geometry, satellite_image=image)
    listed = api(annotator).get(f"/api/scenes/{scene.id}/marks/").json()["results"]
    assert len(listed) == 6 and sum(m["lonlat"] is not None for m in listed) == 4
    for mark in listed:
        assert api(annotator).get(f"/api/marks/{mark['id']}/").json()["lonlat"] == mark["lonlat"]


# ---- list endpoints: a fixed number of queries -----------------------------------------------


def test_facts_and_the_lock_as_each_role_sees_them(annotator, reviewer, admin, api) -> None:
    # given a mark whose facts are an answer key, used by an item in review
    scene = SceneFactory(annotators=[annotator])
    mark = MarkFactory(scene=scene, author=annotator, facts={"visible": True})
    item = ItemFactory(scene=scene, author=annotator, marks=[mark], state="in_review")
    reviewer_answered(item, reviewer)

    # then its author and admins read the facts, its reviewer does not; all see the lock
    for user, sees_facts in ((annotator, True), (admin, True), (reviewer, False)):
        body = api(user).get(f"/api/marks/{mark.id}/").json()
        assert ("facts" in body) is sees_facts, user
        assert body["locked"] is True
        assert body["lonlat"] is None  # the factory's image has no georeference


def test_only_the_author_on_an_assigned_scene_edits_or_deletes(annotator, other_annotator, admin, api) -> None:
    # given a mark on a scene assigned to two annotators
    scene = SceneFactory(annotators=[annotator, other_annotator])
    mark = MarkFactory(scene=scene, author=annotator)
    edit = {"version": 1, "label": "bus"}

    # then neither the other annotator (404: not theirs to see) nor an admin (403) may change it
    assert api(other_annotator).patch(f"/api/marks/{mark.id}/", edit, format="json").status_code == 404
    refused = api(admin).patch(f"/api/marks/{mark.id}/", edit, format="json")
    assert refused.status_code == 403 and refused.json()["detail"] == "only its author can change this"
    assert api(admin).delete(f"/api/marks/{mark.id}/", {"version": 1}, format="json").status_code == 403

    # and once the scene is taken from the author, they cannot change it either
    scene.assignments.filter(annotator=annotator).delete()
    gone = api(annotator).patch(f"/api/marks/{mark.id}/", edit, format="json")
    assert gone.status_code == 403 and gone.json()["detail"] == "this scene is not assigned to you"
    assert Mark.objects.get(id=mark.id).label == "roundabout"


def test_a_locked_mark_answers_409_with_a_sentence(annotator, api) -> None:
    scene = SceneFactory(annotators=[annotator])
    mark = MarkFactory(scene=scene, author=annotator)
    ItemFactory(scene=scene, author=annotator, marks=[mark], state="approved")
    response = api(annotator).patch(f"/api/marks/{mark.id}/", {"version": 1, "label": "bus"}, format="json")
    assert response.status_code == 409
    assert "cannot change now" in response.json()["detail"]


def test_a_locked_mark_a_rejected_item_shares_is_copied_on_write(annotator, api) -> None:
    # given a region an approved item and a rejected item of its author both use
    scene = SceneFactory(annotators=[annotator])
    mark = MarkFactory(scene=scene, author=annotator, facts={"visible": True}, locked=True)
    approved = ItemFactory(scene=scene, author=annotator, marks=[mark], state="approved")
    rejected = ItemFactory(scene=scene, author=annotator, marks=[mark], state="rejected")
    client = api(annotator)

    # then the list says an edit copies it (one query more than none: an annotation, not a loop)
    listed = client.get(f"/api/scenes/{scene.id}/marks/").json()["results"]
    assert [(m["id"], m["locked"], m["copy_on_edit"]) for m in listed] == [(mark.id, True, True)]

    # when the author edits it / then the answer is the copy the rejected item moved to
    response = client.patch(f"/api/marks/{mark.id}/", {"version": 1, "facts": {"visible": False}}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert (body["copied_from"], body["locked"], body["facts"]) == (mark.id, False, {"visible": False})
    assert body["id"] != mark.id
    assert list(rejected.marks.values_list("id", flat=True)) == [body["id"]]
    assert list(approved.marks.values_list("id", flat=True)) == [mark.id]
    assert Mark.objects.get(id=mark.id).facts == {"visible": True}
    # and both are listed: the original (locked, nothing left to copy for) and the copy
    listed = {m["id"]: m["copy_on_edit"] for m in client.get(f"/api/scenes/{scene.id}/marks/").json()["results"]}
    assert listed == {mark.id: False, body["id"]: False}


def test_an_open_region_ring_is_stored_closed(annotator, api) -> None:
    # given a region posted with an open ring (GeoJSON wants the first vertex repeated last)
    scene = SceneFactory(annotators=[annotator])
    open_ring = {"type": "Polygon", "coordinates": [[[10, 10], [60, 10], [60, 40], [10, 40]]]}
    client = api(annotator)
    created = client.post(
        f"/api/scenes/{scene.id}/marks/", _new_mark(scene, kind="polygon", geometry=open_ring), format="json"
    )
    assert created.status_code == 201, created.content
    closed = [[10, 10], [60, 10], [60, 40], [10, 40], [10, 10]]
    # then it is stored and answered closed
    mark = Mark.objects.get(id=created.json()["id"])
    assert mark.geometry["coordinates"] == [closed]
    assert created.json()["geometry"]["coordinates"] == [closed]
    # and an edit with an open ring is closed the same way
    moved = {"type": "Polygon", "coordinates": [[[20, 20], [70, 20], [70, 50]]]}
    edited = client.patch(f"/api/marks/{mark.id}/", {"version": 1, "geometry": moved}, format="json")
    assert edited.status_code == 200, edited.content
    mark.refresh_from_db()
    assert mark.geometry["coordinates"] == [[[20, 20], [70, 20], [70, 50], [20, 20]]]


def test_a_ring_too_short_to_close_is_a_field_error(annotator, api) -> None:
    scene = SceneFactory(annotators=[annotator])
    two_points = {"type": "Polygon", "coordinates": [[[10, 10], [60, 10], [10, 10]]]}
    response = api(annotator).post(
        f"/api/scenes/{scene.id}/marks/", _new_mark(scene, kind="polygon", geometry=two_points), format="json"
    )
    assert response.status_code == 400
    assert "at least 3 distinct vertices" in " ".join(response.json()["geometry"])
    assert not Mark.objects.exists()


# ---- what a mark POST costs, and whom it refuses ----------------------------------------------


def test_a_mark_post_reads_the_scene_and_its_image_in_one_query(annotator, api, django_assert_num_queries) -> None:
    # given an annotator on an assigned scene
    scene = SceneFactory(annotators=[annotator])
    client, mark = api(annotator), _new_mark(scene)
    # when they save a mark: their roles; the scene where it is assigned to them, with its video,
    # project and the image the mark names; the INSERT, here in a savepoint because the test runs in
    # a transaction (served, in autocommit, it is the INSERT alone). Before, the scene was read
    # through the visible scope, the assignment, the video and the label set apart, and the image
    # twice, then once apart.
    with django_assert_num_queries(2 + 3):
        response = client.post(f"/api/scenes/{scene.id}/marks/", mark, format="json")
    # then it is stored and answered whole
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["scene"], body["label"], body["version"], body["lonlat"]) == (scene.id, "car", 1, None)
    assert Mark.objects.get(id=body["id"]).satellite_image_id == scene.satellite_images.get().id


def test_a_mark_post_refuses_as_before_the_scene_was_read_in_one_query(annotator, api) -> None:
    # given a scene assigned to no one, a user who sees every scene and annotates, and an annotator
    # assigned to a scene of a project they are not a member of
    scene = SceneFactory()
    seer = AnnotatorFactory(roles=[ANNOTATOR, ADMIN])
    elsewhere = SceneFactory(annotators=[annotator], project=ProjectFactory())
    # then the one who sees the scene is refused (403), the one who does not finds nothing (404)
    refused = api(seer).post(f"/api/scenes/{scene.id}/marks/", _new_mark(scene), format="json")
    assert (refused.status_code, refused.json()["detail"]) == (403, "this scene is not assigned to you")
    assert api(annotator).post(f"/api/scenes/{scene.id}/marks/", _new_mark(scene), format="json").status_code == 404
    outside = api(annotator).post(f"/api/scenes/{elsewhere.id}/marks/", _new_mark(elsewhere), format="json")
    assert outside.status_code == 404
    # and an image of another scene is a field error
    mine = SceneFactory(annotators=[annotator])
    body = _new_mark(mine, satellite_image=scene.satellite_images.get().id)
    wrong = api(annotator).post(f"/api/scenes/{mine.id}/marks/", body, format="json")
    assert (wrong.status_code, wrong.json()) == (400, {"satellite_image": ["this image does not belong to the scene"]})
    assert not Mark.objects.exists()
