"""Migrating an instance made before projects: everything lands in a default project."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.utils import DatabaseError

BEFORE = [("annotator", "0020_modelview_lease"), ("review", "0006_assignment_reviewer_latest")]


@pytest.mark.django_db(transaction=True)
def test_existing_scenes_releases_users_and_policy_join_the_default_project(settings) -> None:
    # given the schema before projects, with a scene, a frozen release, users in roles and the policy
    settings.SKYMARK_LABELS = ["car", "road"]
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    group = old.get_model("auth", "Group")
    user_model = old.get_model("auth", "User")
    annotator = user_model.objects.create(username="ann")
    annotator.groups.add(group.objects.get_or_create(name="annotator")[0])
    both = user_model.objects.create(username="both")
    both.groups.add(group.objects.get(name="annotator"), group.objects.get_or_create(name="reviewer")[0])
    boss = user_model.objects.create(username="boss", is_superuser=True)
    videos = old.get_model("annotator", "Video").objects
    video = videos.create(file="v.mp4", original_name="v.mp4", sha256="0", size_bytes=1)
    scene = old.get_model("annotator", "Scene").objects.create(name="Old scene", video=video)
    release = old.get_model("review", "Release").objects.create(
        version="1.0", created_by=boss, state="frozen", frozen_at="2026-01-01T00:00:00Z", items_file="r/items.jsonl"
    )
    old.get_model("review", "ReviewPolicy").objects.update_or_create(id=1, defaults={"gold_rate": 0.2})

    # when the project migrations run
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    # then the default project holds them, with the label set of the setting and members by group
    from annotator.models import Project, ProjectMembership, Scene
    from review.models import Release, ReviewPolicy

    project = Project.objects.get(slug="default")
    assert project.name == "Default project"
    assert project.labels == [{"name": "car", "kind": "instance"}, {"name": "road", "kind": "region"}]
    assert Scene.objects.get(id=scene.id).project_id == project.id
    assert Release.objects.get(id=release.id).project_id == project.id
    assert ReviewPolicy.objects.get().project_id == project.id and ReviewPolicy.objects.get().gold_rate == 0.2
    members = set(ProjectMembership.objects.values_list("user__username", "role"))
    assert members == {("ann", "annotator"), ("both", "annotator"), ("both", "reviewer"), ("boss", "admin")}
    # and a new project's policy gets a fresh row (the id sequence moved past the old one)
    other = Project.objects.create(name="Next", slug="next", labels=project.labels)
    assert ReviewPolicy.objects.create(project=other).id != ReviewPolicy.objects.get(project=project).id
    # and the frozen release is still guarded by the database
    with pytest.raises(DatabaseError):
        Release.objects.filter(id=release.id).update(version="1.1")
    assert annotator.id and both.id
