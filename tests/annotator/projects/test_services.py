"""Creating projects and managing their members."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.core.exceptions import ValidationError

from annotator.access.scopes import access_version
from annotator.models import Assignment, Item, Project, ProjectMembership, Scene
from annotator.projects.services import membership_add, membership_remove, project_create
from tests.factories import AnnotatorFactory, ItemFactory, ProjectFactory, ReviewerFactory, SceneFactory

pytestmark = pytest.mark.django_db

LABELS = [{"name": "car", "kind": "instance"}, {"name": "road", "kind": "region"}]


def test_create_checks_the_plan_and_makes_the_creator_its_admin(admin: Any) -> None:
    project = project_create(name=" Harbour  survey ", labels=LABELS, task_mix={"zone_counting": 30}, created_by=admin)
    assert (project.name, project.slug) == ("Harbour survey", "harbour-survey")
    assert project.labels == LABELS and project.task_mix == {"zone_counting": 30}
    assert list(project.memberships.values_list("user_id", "role")) == [(admin.id, "admin")]


def test_create_refuses_a_taken_name_and_a_bad_plan_and_writes_nothing(admin: Any) -> None:
    ProjectFactory(name="Harbour")
    before = Project.objects.count()
    for kwargs, field in (
        ({"name": "harbour"}, "name"),
        ({"name": "New", "labels": [{"name": "car", "kind": "blob"}]}, "labels"),
        ({"name": "New", "task_mix": {"counting": 3}}, "task_mix"),
        ({"name": "  "}, "name"),
    ):
        with pytest.raises(ValidationError) as err:
            project_create(**{"labels": LABELS, "task_mix": {}, "created_by": admin, **kwargs})
        assert field in err.value.message_dict
    assert Project.objects.count() == before


def test_scenes_made_without_a_project_go_to_the_default_one() -> None:
    scene = SceneFactory()
    assert Scene.objects.get(id=scene.id).project.slug == "default"


def test_a_member_must_hold_the_role_and_joining_changes_their_access_version() -> None:
    project = ProjectFactory()
    reviewer = ReviewerFactory()
    with pytest.raises(ValidationError) as err:
        membership_add(project=project, user=reviewer, role="annotator")
    assert "not in the annotator role" in err.value.message_dict["user"][0]
    cache.clear()
    before = access_version(user_id=reviewer.id)
    membership_add(project=project, user=reviewer, role="reviewer")
    membership_add(project=project, user=reviewer, role="reviewer")  # twice: one row
    assert ProjectMembership.objects.filter(project=project, user=reviewer).count() == 1
    assert access_version(user_id=reviewer.id) != before


def test_an_annotator_who_leaves_loses_the_projects_scenes_only() -> None:
    project = ProjectFactory()
    annotator = AnnotatorFactory()
    membership_add(project=project, user=annotator, role="annotator")
    here = SceneFactory(project=project, annotators=[annotator])
    elsewhere = SceneFactory(annotators=[annotator])
    membership_remove(project=project, user=annotator, role="annotator")
    assert list(Assignment.objects.filter(annotator=annotator).values_list("scene_id", flat=True)) == [elsewhere.id]
    assert not project.memberships.filter(user=annotator).exists() and here.id


def _team(n: int = 2) -> tuple[Project, list[Any]]:
    annotators = [AnnotatorFactory(username=f"t{i}") for i in range(n)]
    return ProjectFactory(members={"annotator": annotators}), annotators


def test_balanced_assignment_gives_the_neediest_scenes_to_the_least_loaded(admin: Any) -> None:
    # given two annotators, one already busy with a scene that has no approved item
    from annotator.projects.services import scenes_assign

    project, (busy, free) = _team()
    SceneFactory(project=project, annotators=[busy])
    done = SceneFactory(project=project, name="done")
    ItemFactory(scene=done, author=busy, state=Item.State.APPROVED)
    drafted = SceneFactory(project=project, name="drafted")
    ItemFactory(scene=drafted, author=busy)
    fresh = [SceneFactory(project=project, name=f"fresh {i}") for i in range(2)]

    # when four scenes are balanced over both
    scene_ids = [done.id, drafted.id, *(s.id for s in fresh)]
    made = scenes_assign(
        project=project, scene_ids=scene_ids, annotator_ids=[busy.id, free.id], balanced=True, assigned_by=admin
    )

    # then scenes without items go first, each to whoever has less open work at that moment
    order = [(a.scene.name, a.annotator.username) for a in made]
    assert order == [("fresh 0", "t1"), ("fresh 1", "t0"), ("drafted", "t1"), ("done", "t0")]


def test_assignment_by_hand_gives_each_checked_scene_to_each_checked_annotator(admin: Any) -> None:
    from annotator.projects.services import scenes_assign

    project, team = _team()
    scenes = [SceneFactory(project=project, annotators=[team[0]] if i == 0 else []) for i in range(2)]
    made = scenes_assign(
        project=project,
        scene_ids=[s.id for s in scenes],
        annotator_ids=[u.id for u in team],
        balanced=False,
        assigned_by=admin,
    )
    assert len(made) == 3  # the existing one is kept, not doubled
    assert Assignment.objects.filter(scene__in=scenes).count() == 4


def test_assignment_refuses_outsiders_and_other_projects_scenes(admin: Any) -> None:
    from annotator.projects.services import scenes_assign

    project, team = _team(1)
    outsider = AnnotatorFactory()
    elsewhere = SceneFactory()
    mine = SceneFactory(project=project)
    for scene_ids, annotator_ids, field in (
        ([mine.id], [outsider.id], "annotators"),
        ([elsewhere.id], [team[0].id], "scenes"),
        ([], [team[0].id], "scenes"),
    ):
        with pytest.raises(ValidationError) as err:
            scenes_assign(
                project=project, scene_ids=scene_ids, annotator_ids=annotator_ids, balanced=True, assigned_by=admin
            )
        assert field in err.value.message_dict
    assert not Assignment.objects.filter(scene__in=[mine, elsewhere]).exists()


def test_reassign_moves_the_scene_and_the_first_annotator_loses_it_at_once(admin: Any, api: Any) -> None:
    from annotator.projects.services import scene_reassign

    project, (first, second) = _team()
    scene = SceneFactory(project=project, annotators=[first])
    assert api(first).get(f"/api/scenes/{scene.id}/").status_code == 200
    cache.clear()
    before = access_version(user_id=first.id)
    scene_reassign(scene=scene, from_user_id=first.id, to_user_id=second.id, assigned_by=admin)
    assert api(first).get(f"/api/scenes/{scene.id}/").status_code == 404
    assert api(second).get(f"/api/scenes/{scene.id}/").status_code == 200
    assert access_version(user_id=first.id) != before
    with pytest.raises(ValidationError):
        scene_reassign(scene=scene, from_user_id=first.id, to_user_id=second.id, assigned_by=admin)
