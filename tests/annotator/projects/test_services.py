"""Creating projects and managing their members."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.core.exceptions import ValidationError

from annotator.access.scopes import access_version
from annotator.models import Assignment, Project, ProjectMembership, Scene
from annotator.projects.services import membership_add, membership_remove, project_create
from tests.factories import AnnotatorFactory, ProjectFactory, ReviewerFactory, SceneFactory

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
