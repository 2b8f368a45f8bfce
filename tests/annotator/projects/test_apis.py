"""The projects API and pages: create, members, import into a project, bulk assignment and
reassignment, both sides of the assignment; list query counts do not grow with rows."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from annotator.models import Assignment, Project, ProjectMembership, Scene
from tests.factories import AdminFactory, AnnotatorFactory, ProjectFactory, SceneFactory, copy_to, png_bytes, tiny_video

pytestmark = pytest.mark.django_db

LABELS = [{"name": "boat", "kind": "instance"}, {"name": "pier", "kind": "region"}]


def test_an_admin_creates_a_project_and_a_bad_label_set_is_a_field_error(admin: Any, api: Any) -> None:
    made = api(admin).post(
        "/api/projects/", {"name": "Harbour", "labels": LABELS, "task_mix": {"zone_counting": 12}}, format="json"
    )
    assert made.status_code == 201, made.content
    assert made.json()["labels"] == LABELS and made.json()["slug"] == "harbour"
    bad = api(admin).post("/api/projects/", {"name": "B", "labels": [{"name": "x", "kind": "blob"}]}, format="json")
    assert bad.status_code == 400 and "labels" in bad.json()
    assert (
        api(AnnotatorFactory()).post("/api/projects/", {"name": "C", "labels": LABELS}, format="json").status_code
        == 403
    )


def test_the_project_list_costs_the_same_for_many_projects(admin: Any, api: Any, django_assert_num_queries) -> None:
    client = api(admin)
    for i in range(2):
        ProjectFactory(members={"admin": [admin]}, name=f"P{i}", slug=f"p{i}")
    with django_assert_num_queries(1) as few:  # the page, counts annotated (a short page is its own count)
        client.get("/api/projects/")
    for i in range(2, 8):
        ProjectFactory(members={"admin": [admin]}, name=f"P{i}", slug=f"p{i}")
    with django_assert_num_queries(len(few.captured_queries)):
        response = client.get("/api/projects/")
    assert response.json()["count"] == 9  # and the default project


def test_members_are_added_and_removed_by_role(admin: Any, api: Any) -> None:
    project = ProjectFactory(members={"admin": [admin]})
    ann = AnnotatorFactory()
    url = f"/api/projects/{project.id}/members/"
    assert api(admin).post(url, {"user": ann.id, "role": "annotator"}, format="json").status_code == 201
    refused = api(admin).post(url, {"user": ann.id, "role": "reviewer"}, format="json")
    assert refused.status_code == 400 and "not in the reviewer role" in refused.json()["user"][0]
    detail = api(ann).get(f"/api/projects/{project.id}/").json()
    assert {(m["username"], m["role"]) for m in detail["members"]} >= {(ann.username, "annotator")}
    assert detail["labels"] == project.labels
    assert api(admin).delete(f"{url}?user={ann.id}&role=annotator").status_code == 204
    assert api(ann).get(f"/api/projects/{project.id}/").status_code == 404


def _team(admin: Any, n: int = 2) -> tuple[Project, list[Any]]:
    team = [AnnotatorFactory(username=f"member{i}") for i in range(n)]
    return ProjectFactory(members={"admin": [admin], "annotator": team}), team


def test_bulk_assignment_and_both_sides(admin: Any, api: Any, django_assert_num_queries) -> None:
    project, team = _team(admin)
    scenes = [SceneFactory(project=project, name=f"s{i}") for i in range(4)]
    url = f"/api/projects/{project.id}/assignments/"
    body = {"scenes": [s.id for s in scenes], "annotators": [u.id for u in team], "mode": "balanced"}
    made = api(admin).post(url, body, format="json")
    assert made.status_code == 201, made.content
    assert sorted(r["annotator"] for r in made.json()["assigned"]) == ["member0", "member0", "member1", "member1"]

    client = api(admin)
    client.get(url)  # the user's roles are read once per client
    with django_assert_num_queries(4) as first:  # the project, then scenes, their assignments, members
        sides = client.get(url).json()
    SceneFactory(project=project, annotators=[team[0]])
    with django_assert_num_queries(len(first.captured_queries)):
        client.get(url)
    by_scene = {s["name"]: s["annotators"] for s in sides["scenes"]}
    by_user = {a["username"]: a["scenes"] for a in sides["annotators"]}
    for name, names in by_scene.items():
        (owner,) = names
        assert next(s.id for s in scenes if s.name == name) in by_user[owner]


def test_reassign_api_moves_the_scene(admin: Any, api: Any) -> None:
    project, (first, second) = _team(admin)
    scene = SceneFactory(project=project, annotators=[first])
    moved = api(admin).post(f"/api/scenes/{scene.id}/reassign/", {"from_user": first.id, "to_user": second.id})
    assert moved.status_code == 200 and moved.json()["annotator"] == second.username
    assert list(Assignment.objects.filter(scene=scene).values_list("annotator_id", flat=True)) == [second.id]
    assert api(first).get(f"/api/scenes/{scene.id}/").status_code == 404
    # an admin of another project cannot reach it
    assert api(AdminFactory()).post(f"/api/scenes/{scene.id}/reassign/", {"from_user": second.id}).status_code == 404


def test_pages_create_a_project_add_a_member_and_assign(admin: Any) -> None:
    client = Client()
    client.force_login(admin)
    form = {"name": "Docks", "labels": "boat: instance\npier: region", "target_zone_counting": "5"}
    created = client.post("/projects/", form)
    project = Project.objects.get(name="Docks")
    assert created.status_code == 302 and project.task_mix == {"zone_counting": 5}
    bad = client.post("/projects/", {"name": "X", "labels": "boat", "target_zone_counting": "many"})
    assert bad.status_code == 400 and b"kind must be instance or region" in bad.content
    ann = AnnotatorFactory(username="docker")
    client.post(f"/projects/{project.id}/", {"user": ann.id, "role": "annotator"})
    assert ProjectMembership.objects.filter(project=project, user=ann, role="annotator").exists()
    scene = SceneFactory(project=project, name="quay")
    client.post(
        f"/projects/{project.id}/assignments/", {"scenes": [scene.id], "annotators": [ann.id], "action": "each"}
    )
    page = client.get(f"/projects/{project.id}/assignments/").content.decode()
    assert 'data-annotator="docker"' in page and 'data-scene="quay"' in page
    assert Assignment.objects.filter(scene=scene, annotator=ann).exists()


def test_import_into_a_project_by_command_and_api(tmp_path: Path, admin: Any, api: Any) -> None:
    project = ProjectFactory(slug="harbour", members={"admin": [admin]})
    copy_to(tiny_video(), tmp_path / "one.mp4")
    (tmp_path / "a.png").write_bytes(png_bytes(120, 80, 1))
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"scenes": [{"name": "Quay", "video": "one.mp4", "satellite": ["a.png"]}]}))
    call_command("import_scenes", str(manifest), "--project", "harbour", stdout=io.StringIO())
    assert Scene.objects.get(name="Quay").project == project
    with pytest.raises(CommandError, match="no project 'nowhere'"):
        call_command("import_scenes", str(manifest), "--project", "nowhere", stdout=io.StringIO())
    with (tmp_path / "one.mp4").open("rb") as video, (tmp_path / "a.png").open("rb") as image:
        body = {"name": "Quay 2", "project": "harbour", "video": video, "satellite": [image]}
        made = api(admin).post("/api/scenes/", body, format="multipart")
    assert made.status_code == 201, made.content
    assert Scene.objects.get(name="Quay 2").project == project
    # the scene says its project and the label set its marks take
    assert (made.json()["project"], made.json()["labels"]) == ("harbour", project.labels)
    other = ProjectFactory(slug="elsewhere")
    with (tmp_path / "one.mp4").open("rb") as video:
        refused = api(admin).post("/api/scenes/", {"name": "Q3", "project": other.slug, "video": video})
    assert refused.status_code == 400 and "project" in refused.json()
