"""annotator.hotpath answers what the ORM queries it replaces answer, on the same rows: each test
spells that ORM query (as the module's docstrings do) and compares, for every case the access rules
tell apart. Runs on both databases (make test runs the suite on PostgreSQL and on SQLite)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import OuterRef
from django.http import Http404
from django.test import Client

from annotator import hotpath
from annotator.access.roles import ADMIN, ANNOTATOR, REVIEWER, user_roles
from annotator.access.scopes import scene_assigned, scene_get_visible, sees_own_work_only
from annotator.compiling.lifecycle import OPEN_STATES
from annotator.marking.selectors import marks_for_scene
from annotator.marking.serializers import MarkOutputSerializer
from annotator.models import Item, Mark, Project, ProjectMembership, SatelliteImage, Scene
from annotator.models.scenes import Assignment
from tests.factories import (
    AnnotatorFactory,
    ItemFactory,
    MarkFactory,
    ProjectFactory,
    SatelliteImageFactory,
    SceneFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def _fields(obj: Any, names: list[str]) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in names}


# ---- the user and their roles -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("roles", "superuser"),
    [([], False), ([ANNOTATOR], False), ([ANNOTATOR, REVIEWER], False), ([REVIEWER], True), ([], True)],
)
def test_the_user_and_roles_are_the_orms(roles: list[str], superuser: bool, django_assert_num_queries: Any) -> None:
    # given a user with these groups, a superuser or not, and someone else with other groups
    user = UserFactory(roles=roles, is_superuser=superuser, first_name="Zoë")
    UserFactory(roles=[ADMIN, REVIEWER])
    orm = get_user_model().objects.get(pk=user.pk)
    # when it is read by hand, in one query
    with django_assert_num_queries(1):
        fast = hotpath.user_with_roles(user.pk)
        fast_roles = user_roles(fast)  # known already: no second query
    # then every field is the ORM's, value and type (SQLite gives booleans as 0/1 and times as text
    # unless converted), and the roles are those the groups give
    names = [f.attname for f in get_user_model()._meta.concrete_fields]
    assert _fields(fast, names) == _fields(orm, names)
    assert {n: type(v) for n, v in _fields(fast, names).items()} == {n: type(v) for n, v in _fields(orm, names).items()}
    assert fast_roles == user_roles(orm) == set(roles) | ({ADMIN} if superuser else set())
    assert not hasattr(fast, hotpath.ROLE)


def test_no_such_user_is_none() -> None:
    assert hotpath.user_with_roles(987_654) is None


def test_a_session_signs_in_with_one_query_and_follows_the_account(django_assert_num_queries: Any) -> None:
    # given an annotator signed in with a session, as the pages are
    annotator = AnnotatorFactory()
    client = Client()
    client.force_login(annotator)
    # when a list that depends on the role is asked: the user and its roles together, then the
    # scenes' page (a short page is its own count: annotator.pagination)
    with django_assert_num_queries(2) as seen:
        assert client.get("/api/scenes/").status_code == 200
    assert "auth_group" in seen.captured_queries[0]["sql"]
    assert not any("auth_" in q["sql"] for q in seen.captured_queries[1:])
    # then a role taken away is gone at the next request (nothing is cached across requests)
    annotator.groups.remove(Group.objects.get(name=ANNOTATOR))
    assert client.post("/api/items/check/", {"mark_ids": [1]}, content_type="application/json").status_code == 403
    # and a deactivated account, or a changed password, signs the session out
    get_user_model().objects.filter(pk=annotator.pk).update(is_active=False)
    assert client.get("/api/scenes/").status_code == 403
    get_user_model().objects.filter(pk=annotator.pk).update(is_active=True)
    assert client.get("/api/scenes/").status_code == 200
    annotator.set_password("another-pass-98765")
    annotator.save()
    assert client.get("/api/scenes/").status_code == 403


# ---- the scene a mark goes on -----------------------------------------------------------------


def _orm_scene(user: Any, scene_id: int) -> Scene | None:
    qs = (
        Scene.objects.filter(id=scene_id, assignments__annotator_id=user.pk)
        .select_related("video", "project")
        .only("id", "project_id", "video_id", "video__duration_s", "project__labels")
    )
    if not user.is_superuser:
        qs = qs.filter(project_id__in=ProjectMembership.objects.filter(user_id=user.pk).values("project_id"))
    return qs.first()


def test_the_scene_to_draw_on_is_the_orms_in_every_case(django_assert_num_queries: Any) -> None:
    # given an annotator, a superuser who annotates, and scenes: assigned in a member project,
    # assigned in a project they are not a member of, in a member project but not assigned, and
    # assigned to both (with a second annotator assigned too)
    annotator = AnnotatorFactory()
    root = AnnotatorFactory(is_superuser=True)
    other = AnnotatorFactory()
    mine = SceneFactory(annotators=[annotator, other])
    elsewhere = SceneFactory(annotators=[annotator, root], project=ProjectFactory())
    unassigned = SceneFactory()
    cases = [(u, s.id) for u in (annotator, root, other) for s in (mine, elsewhere, unassigned)]
    cases += [(annotator, 987_654)]
    for user, scene_id in cases:
        orm = _orm_scene(user, scene_id)
        with django_assert_num_queries(1):
            fast = hotpath.scene_to_draw_on(user=user, scene_id=scene_id)
            # then what a mark needs is loaded with it
            fast_needs = None if fast is None else (fast.video.duration_s, fast.project.labels)
        if orm is None:
            assert fast is None, (user.username, scene_id)
            continue
        assert fast is not None, (user.username, scene_id)
        assert (fast.id, fast.project_id, fast.video_id) == (orm.id, orm.project_id, orm.video_id)
        assert fast_needs == (orm.video.duration_s, orm.project.labels)
        # and the rest is deferred as .only() defers it: read when touched
        assert fast.get_deferred_fields() == orm.get_deferred_fields()
        assert fast.name == Scene.objects.get(id=scene_id).name
    assert hotpath.scene_to_draw_on(user=root, scene_id=elsewhere.id) is not None  # superuser: any project
    assert hotpath.scene_to_draw_on(user=annotator, scene_id=elsewhere.id) is None  # not a member there


def test_the_scene_to_draw_on_with_its_image_is_the_orms_two_reads_in_one(django_assert_num_queries: Any) -> None:
    # given a scene with two images, an image of another scene, and users who may or may not draw
    first, second = SatelliteImageFactory(), SatelliteImageFactory(width=640, height=480)
    SatelliteImage.objects.filter(id=second.id).update(georef={"crs": "EPSG:32633", "transform": [1, 0, 5, 0, -1, 9]})
    annotator, root, other = AnnotatorFactory(), AnnotatorFactory(is_superuser=True), AnnotatorFactory()
    scene = SceneFactory(annotators=[annotator, root], satellite_images=[first, second])
    foreign = SceneFactory(annotators=[other]).satellite_images.get()
    fields = ["id", "width", "height", "georef"]
    for user in (annotator, root, other):
        for image_id in (first.id, second.id, foreign.id, 987_654):
            # when the scene is read naming the image
            with django_assert_num_queries(1):
                fast = hotpath.scene_to_draw_on(user=user, scene_id=scene.id, image_id=image_id)
            # then the scene is the ORM's scene, and the image kept on it the ORM's image of the scene
            orm = _orm_scene(user, scene.id)
            if orm is None:
                assert fast is None, (user.username, image_id)
                continue
            assert fast is not None and (fast.id, fast.video.duration_s) == (orm.id, orm.video.duration_s)
            orm_image = scene.satellite_images.filter(id=image_id).only(*fields).first()
            named, found = getattr(fast, hotpath.CHECKED_IMAGE)
            assert named == image_id
            if orm_image is None:
                assert found is None, (user.username, image_id)
                continue
            assert _fields(found, fields) == _fields(orm_image, fields)
            assert found.get_deferred_fields() == orm_image.get_deferred_fields()
    # and without an image named, nothing is kept on the scene
    assert not hasattr(hotpath.scene_to_draw_on(user=annotator, scene_id=scene.id), hotpath.CHECKED_IMAGE)


def test_the_labels_come_back_as_json_whatever_they_hold() -> None:
    labels = [{"name": "café ☕", "kind": "instance"}, {"name": "road", "kind": "region", "colour": None}]
    project = ProjectFactory(labels=labels)
    annotator = AnnotatorFactory()
    ProjectMembership.objects.create(project=project, user=annotator, role=ANNOTATOR)
    scene = SceneFactory(annotators=[annotator], project=project)
    fast = hotpath.scene_to_draw_on(user=annotator, scene_id=scene.id)
    assert fast is not None
    assert fast.project.labels == labels == Project.objects.get(id=project.id).labels


# ---- the image a mark is drawn on -------------------------------------------------------------


def test_the_image_of_a_scene_is_the_orms() -> None:
    # given a scene with two images, and another scene with its own
    first, second = SatelliteImageFactory(), SatelliteImageFactory(width=640, height=480)
    SatelliteImage.objects.filter(id=second.id).update(georef={"crs": "EPSG:32633", "transform": [1, 0, 5, 0, -1, 9]})
    scene, other = SceneFactory(satellite_images=[first, second]), SceneFactory()
    for image in (first, second, other.satellite_images.get()):
        orm = scene.satellite_images.filter(id=image.id).only("id", "width", "height", "georef").first()
        fast = hotpath.image_of_scene(scene_id=scene.id, image_id=image.id)
        if orm is None:
            assert fast is None
            continue
        assert fast is not None
        assert _fields(fast, ["id", "width", "height", "georef"]) == _fields(orm, ["id", "width", "height", "georef"])
        assert fast.get_deferred_fields() == orm.get_deferred_fields()
    assert hotpath.image_of_scene(scene_id=scene.id, image_id=987_654) is None


# ---- an annotator's marks on a scene ----------------------------------------------------------


def _orm_marks(user: Any, scene_id: int) -> list[Mark] | None:
    """As the marks read answers a user through the ORM: the scene's check, then its marks."""
    try:
        scene = scene_get_visible(user=user, scene_id=scene_id)
    except Http404:
        return None
    return list(marks_for_scene(user=user, scene=scene))


def test_an_annotators_marks_are_the_orms_in_every_case(django_assert_num_queries: Any) -> None:
    # given an annotator and a second one on the same scene, whose marks are theirs to see; the
    # scene has a georeferenced image and one without
    annotator, other = AnnotatorFactory(), AnnotatorFactory()
    plain, mapped = SatelliteImageFactory(), SatelliteImageFactory(width=640, height=480)
    SatelliteImage.objects.filter(id=mapped.id).update(georef={"crs": "EPSG:32633", "transform": [1, 0, 5, 0, -1, 9]})
    mine = SceneFactory(annotators=[annotator, other], satellite_images=[plain, mapped])
    elsewhere = SceneFactory(annotators=[annotator], project=ProjectFactory())  # not a member there
    unassigned = SceneFactory()
    # and marks of every kind of state an edit tells apart: free; locked by an item in review with
    # a draft of the author's too (an edit copies); locked alone (no copy); with a rejected item
    # since replaced (not open any more); a tracked draft; on the mapped image
    free = MarkFactory(scene=mine, author=annotator, satellite_image=plain)
    copied = MarkFactory(scene=mine, author=annotator, satellite_image=mapped, label="café ☕")
    locked = MarkFactory(scene=mine, author=annotator, satellite_image=plain)
    replaced = MarkFactory(scene=mine, author=annotator, satellite_image=mapped)
    MarkFactory(scene=mine, author=annotator, satellite_image=plain, draft=True, kind="point",
                geometry={"type": "Point", "coordinates": [3.0, 4.0]}, time_end=None)  # fmt: skip
    ItemFactory(scene=mine, author=annotator, state=Item.State.IN_REVIEW, marks=[copied, locked])
    ItemFactory(scene=mine, author=annotator, state=Item.State.DRAFT, marks=[copied])
    newer = ItemFactory(scene=mine, author=annotator, state=Item.State.DRAFT, marks=[free])
    ItemFactory(scene=mine, author=annotator, state=Item.State.REJECTED, marks=[replaced], replaced_by=newer)
    MarkFactory(scene=mine, author=other, satellite_image=plain)  # not the annotator's
    MarkFactory(scene=elsewhere, author=annotator, satellite_image=elsewhere.satellite_images.get())
    MarkFactory(scene=unassigned, author=annotator, assigned=False, satellite_image=unassigned.satellite_images.get())
    names = [f.attname for f in Mark._meta.concrete_fields] + [hotpath.IMAGE_GEOREF, hotpath.COPY_ON_EDIT]
    for user in (annotator, other):
        for scene_id in (mine.id, elsewhere.id, unassigned.id, 987_654):
            orm = _orm_marks(user, scene_id)
            # when it is read by hand: the check in one query, a page in one
            with django_assert_num_queries(1):
                own = hotpath.own_marks_of_scene(user=user, scene_id=scene_id)
            if orm is None:
                assert own is None, (user.username, scene_id)
                continue
            assert own is not None, (user.username, scene_id)
            with django_assert_num_queries(1):
                fast = own[0:500]
            # then the rows, in order, with every value and its type, are the ORM's
            assert [_fields(m, names) for m in fast] == [_fields(m, names) for m in orm]
            assert [{n: type(v) for n, v in _fields(m, names).items()} for m in fast] == [
                {n: type(v) for n, v in _fields(m, names).items()} for m in orm
            ]
            # and so is every page, and the count
            assert own.count() == len(orm)
            for limit in (1, 2, 3):
                for offset in range(len(orm) + 2):
                    assert [m.id for m in own[offset : offset + limit]] == [m.id for m in orm[offset : offset + limit]]
    # the cases are all there: an edit that copies, locks that do not, a georeference and none
    fast = hotpath.own_marks_of_scene(user=annotator, scene_id=mine.id)[0:500]  # type: ignore[index]
    assert {m.id: (m.locked, m.copy_on_edit) for m in fast} == {
        free.id: (False, True), copied.id: (True, True), locked.id: (True, False),
        replaced.id: (False, False), fast[-1].id: (False, False),  # rejected, and replaced: not open
    }  # fmt: skip
    assert {m.image_georef is None for m in fast} == {True, False}


@pytest.mark.parametrize("roles", [[ANNOTATOR], [ANNOTATOR, REVIEWER], [ADMIN]])
def test_the_marks_read_answers_each_role_as_the_orm_would(roles: list[str]) -> None:
    # given a user with these roles, assigned to a scene with their marks, one of them in review
    user = UserFactory(roles=roles)
    scene = SceneFactory(annotators=[user])
    marks = [MarkFactory(scene=scene, author=user) for _ in range(3)]
    ItemFactory(scene=scene, author=user, state=Item.State.IN_REVIEW, marks=marks[:1])
    ItemFactory(scene=scene, author=user, state=Item.State.DRAFT, marks=marks[:2])
    client = Client()
    client.force_login(user)
    # when the workspace reads them (only an annotator alone takes the hand-written path)
    answer = client.get(f"/api/scenes/{scene.id}/marks/?limit=2")
    # then the page is what the ORM's rows serialize to, with the whole list's count
    assert sees_own_work_only(user=user) == (roles == [ANNOTATOR])
    orm = _orm_marks(user, scene.id)
    assert orm is not None
    expected = MarkOutputSerializer(orm[:2], many=True, context={"viewer": user}).data
    assert answer.status_code == 200
    assert answer.json()["results"] == json.loads(json.dumps(expected, cls=DjangoJSONEncoder))
    assert answer.json()["count"] == 3
    assert client.get("/api/scenes/987654/marks/").status_code == 404


def test_the_copy_on_edit_check_by_hand_reads_each_marks_links_not_the_authors_items() -> None:
    # given an annotator with an item on a mark (the ORM's form is planned the same way:
    # tests/annotator/marking/test_selectors.py)
    from django.db import connection

    if connection.vendor != "sqlite":
        pytest.skip("SQLite's query plan; PostgreSQL plans the check from the mark by its statistics")
    annotator = AnnotatorFactory()
    scene = SceneFactory(annotators=[annotator])
    ItemFactory(scene=scene, author=annotator, marks=[MarkFactory(scene=scene, author=annotator)])
    # when the page's query is planned, then each mark's links are looked up by the mark index and
    # the author's items are never walked through the author index, and the marks come by the scene
    params = [annotator.pk, *OPEN_STATES, scene.id, annotator.pk, 500, 0]
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN QUERY PLAN " + hotpath._own_marks_sql(connection.alias), params)
        plan = " | ".join(str(row[-1]) for row in cursor.fetchall())
    assert "annotator_item_marks_mark_id" in plan, plan
    assert "annotator_item_author_id" not in plan, plan
    assert "SEARCH annotator_mark USING INDEX annotator_mark_scene_id" in plan, plan


# ---- the marks an item is compiled from -------------------------------------------------------


def _orm_marks_to_compile(user: Any, mark_ids: list[int]) -> list[Mark]:
    """compiling.services.marks_for_item's read before it was written by hand."""
    own = Mark.objects.select_related("satellite_image").filter(id__in=mark_ids, author_id=user.pk)
    return list(own.annotate(assigned=scene_assigned(user=user, scene_id=OuterRef("scene_id"))).order_by("id"))


def test_the_marks_to_compile_are_the_orms_in_every_case(django_assert_num_queries: Any) -> None:
    # given an annotator, a superuser who annotates and another annotator; marks of the first on a
    # scene assigned in a member project (one on an image with a georeference and valid area), on a
    # scene assigned in a project they are not a member of, and on a scene no longer assigned; and
    # marks of the others on the first's scene
    annotator, root, other = AnnotatorFactory(), AnnotatorFactory(is_superuser=True), AnnotatorFactory()
    mine = SceneFactory(annotators=[annotator, other, root])
    elsewhere = SceneFactory(annotators=[annotator, root], project=ProjectFactory())
    left = SceneFactory(annotators=[annotator])
    image = mine.satellite_images.get()
    SatelliteImage.objects.filter(id=image.id).update(
        georef={"crs": "EPSG:32633", "transform": [0.5, 0, 5, 0, -0.5, 9]},
        valid_area={"type": "Polygon", "coordinates": [[[0, 0], [9, 0], [9, 9], [0, 0]]]},
    )
    marks = [
        MarkFactory(scene=mine, author=annotator),
        MarkFactory(scene=mine, author=annotator, kind=Mark.Kind.POINT, time_end=None,
                    geometry={"type": "Point", "coordinates": [3, 4]}, facts={"visible": False, "first_seen_s": 0.5}),
        MarkFactory(scene=elsewhere, author=annotator),
        MarkFactory(scene=left, author=annotator),
        MarkFactory(scene=mine, author=other),
        MarkFactory(scene=elsewhere, author=root),
    ]  # fmt: skip
    Assignment.objects.filter(scene=left, annotator=annotator).delete()
    ids = [m.id for m in marks]
    cases = [(u, chosen) for u in (annotator, root, other) for chosen in (ids, ids[::-1], ids[:2], [ids[1], ids[1]])]
    cases += [(annotator, [987_654, ids[0]]), (annotator, [])]
    mark_names = [f.attname for f in Mark._meta.concrete_fields]
    image_names = [f.attname for f in SatelliteImage._meta.concrete_fields]
    for user, chosen in cases:
        orm = _orm_marks_to_compile(user, chosen)
        # when they are read by hand, in one query (none for no ids)
        with django_assert_num_queries(1 if chosen else 0):
            fast = hotpath.marks_to_compile(user=user, mark_ids=chosen)
            # then each mark's image comes with it
            fast_images = [_fields(m.satellite_image, image_names) for m in fast]
        # and every field of each mark and its image is the ORM's, value and type, as is `assigned`
        assert [m.id for m in fast] == [m.id for m in orm], (user.username, chosen)
        assert [_fields(m, mark_names) for m in fast] == [_fields(m, mark_names) for m in orm]
        assert [{k: type(v) for k, v in _fields(m, mark_names).items()} for m in fast] == [
            {k: type(v) for k, v in _fields(m, mark_names).items()} for m in orm
        ]
        assert fast_images == [_fields(m.satellite_image, image_names) for m in orm]
        assert [(m.assigned, type(m.assigned)) for m in fast] == [(m.assigned, type(m.assigned)) for m in orm]
    # the cases the access rule tells apart: a member project's scene, a project left, an assignment gone
    by_id = {m.id: m.assigned for m in hotpath.marks_to_compile(user=annotator, mark_ids=ids)}
    assert by_id == {ids[0]: True, ids[1]: True, ids[2]: False, ids[3]: False}
    assert [m.assigned for m in hotpath.marks_to_compile(user=root, mark_ids=ids)] == [True]  # superuser: any project
