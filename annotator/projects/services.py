"""Writes to projects and their members (admins; the pages, the API and the commands call these).
Joining or leaving a project changes what the user may see: their access version changes with
it (annotator.apps), so cached answers about images go at once."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.text import slugify

from annotator.access.roles import has_role
from annotator.models import Assignment, Project, ProjectMembership
from annotator.projects.rules import labels_clean, task_mix_clean


@transaction.atomic
def project_create(
    *, name: str, labels: Any, task_mix: Any, created_by: Any, description: str = "", slug: str = ""
) -> Project:
    """A project with a checked label set and task mix; its creator joins it as an admin.
    Raises ValidationError on `name`, `slug`, `labels` or `task_mix`."""
    name = " ".join(name.split())
    if not name:
        raise ValidationError({"name": "a project needs a name"})
    slug = slugify(slug or name)[:60]
    if not slug:
        raise ValidationError({"slug": "the name gives no usable short name: give a slug of letters and digits"})
    if Project.objects.filter(name__iexact=name).exists() or Project.objects.filter(slug=slug).exists():
        raise ValidationError({"name": f"a project named {name!r} (or with the slug {slug!r}) exists"})
    project = Project.objects.create(
        name=name,
        slug=slug,
        description=description,
        labels=labels_clean(labels),
        task_mix=task_mix_clean(task_mix),
        created_by=created_by,
    )
    if created_by is not None:
        ProjectMembership.objects.create(project=project, user=created_by, role=ProjectMembership.Role.ADMIN)
    return project


@transaction.atomic
def project_update(
    *, project: Project, labels: Any = None, task_mix: Any = None, description: str | None = None
) -> Project:
    """Change the plan of a project. A label marks already carry stays theirs (a mark is checked
    against the set when it is written)."""
    if labels is not None:
        project.labels = labels_clean(labels)
    if task_mix is not None:
        project.task_mix = task_mix_clean(task_mix)
    if description is not None:
        project.description = description
    project.save(update_fields=["labels", "task_mix", "description"])
    return project


@transaction.atomic
def membership_add(*, project: Project, user: Any, role: str) -> ProjectMembership:
    """Make `user` a member in `role`; they must hold that role (their group). Adding twice
    returns the existing membership."""
    if role not in ProjectMembership.Role.values:
        raise ValidationError({"role": f"{role!r} is not a role ({', '.join(ProjectMembership.Role.values)})"})
    if not has_role(user, role):
        raise ValidationError({"user": f"{user} is not in the {role} role"})
    try:
        with transaction.atomic():
            membership, _ = ProjectMembership.objects.get_or_create(project=project, user=user, role=role)
    except IntegrityError:  # a concurrent add of the same row won
        membership = ProjectMembership.objects.get(project=project, user=user, role=role)
    return membership


@transaction.atomic
def membership_remove(*, project: Project, user: Any, role: str) -> None:
    """End a membership; an annotator who leaves loses the project's scenes assigned to them."""
    ProjectMembership.objects.filter(project=project, user=user, role=role).delete()
    if role == ProjectMembership.Role.ANNOTATOR:
        for assignment in Assignment.objects.filter(scene__project=project, annotator=user):
            assignment.delete()  # one by one: each deletion announces the lost scene (access cache)
