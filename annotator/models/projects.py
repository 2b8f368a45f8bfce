"""Benchmark projects: what a group of people builds together (a label set, a planned mix of tasks)
and who takes part, in which role. Scenes belong to one project; marks, items and reviews reach
theirs through their scene."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q

DEFAULT_PROJECT_SLUG = "default"


class Project(models.Model):
    name = models.CharField(max_length=200, unique=True)
    slug = models.SlugField(max_length=60, unique=True)
    description = models.TextField(blank=True)
    # [{"name": "car", "kind": "instance"}, {"name": "road", "kind": "region"}]: what a mark may be
    # called, and whether it names a target instance or a region (annotator.projects.rules checks it).
    labels = models.JSONField(default=list)
    # The planned mix: {task id: target item count}, over the 12 tasks of the compiling catalog.
    task_mix = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.CheckConstraint(condition=~Q(slug=""), name="project_slug_present")]

    def __str__(self) -> str:
        return self.name


class ProjectMembership(models.Model):
    """A user takes part in a project in one role (one row per role they hold there). The role names
    are those of annotator.access.roles; what a role may do stays with the user's groups."""

    class Role(models.TextChoices):
        ANNOTATOR = "annotator"
        REVIEWER = "reviewer"
        ADJUDICATOR = "adjudicator"
        ADMIN = "admin"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="project_memberships")
    role = models.CharField(max_length=16, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project_id", "role", "user_id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "user", "role"], name="membership_unique"),
            models.CheckConstraint(
                condition=Q(role__in=["annotator", "reviewer", "adjudicator", "admin"]), name="membership_role_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"user {self.user_id} as {self.role} in project {self.project_id}"


def project_default_id() -> Any:
    """The default project (made by migration 0019), for scenes and releases made without naming
    one: an import or a script written before projects existed keeps working."""
    from annotator.projects.rules import default_label_rows

    project, _ = Project.objects.get_or_create(
        slug=DEFAULT_PROJECT_SLUG, defaults={"name": "Default project", "labels": default_label_rows()}
    )
    return project.pk
