"""annotator.hotpath answers what the ORM queries it replaces answer, on the same rows: each test
spells that ORM query (as the module's docstrings do) and compares, for every case the access rules
tell apart. Runs on both databases (make test runs the suite on PostgreSQL and on SQLite)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client

from annotator import hotpath
from annotator.access.roles import ADMIN, ANNOTATOR, REVIEWER, user_roles
from annotator.models import Project, ProjectMembership, SatelliteImage, Scene
from tests.factories import (
    AnnotatorFactory,
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
