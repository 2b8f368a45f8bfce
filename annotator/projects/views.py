"""Project pages: the list (and the admin's create form), a project with its members, and the
assignment of its scenes. Every write goes through annotator.projects.services."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from annotator.access.permissions import IsAdmin, page_require
from annotator.access.roles import ADMIN, has_role
from annotator.compiling.catalog import TASK_DIMENSION
from annotator.models import Item
from annotator.parsers import query_id
from annotator.projects import selectors
from annotator.projects.rules import labels_parse
from annotator.projects.services import (
    membership_add,
    membership_remove,
    project_create,
    scene_reassign,
    scenes_assign,
)

TASK_NAMES = dict(Item.Task.choices)


def _errors(exc: ValidationError) -> str:
    return " ".join(m for msgs in exc.message_dict.values() for m in msgs)


def _mix_from(post: Any) -> dict[str, Any]:
    """The form's 12 target fields; an empty field plans nothing, anything else must be a count."""
    mix: dict[str, Any] = {}
    for task in TASK_DIMENSION:
        text = post.get(f"target_{task}", "").strip()
        if text:
            mix[task] = int(text) if text.isdigit() else text
    return mix


@login_required
def project_list(request: HttpRequest) -> HttpResponse:
    error = None
    if request.method == "POST":
        page_require(request, IsAdmin())
        try:
            project = project_create(
                name=request.POST.get("name", ""),
                description=request.POST.get("description", ""),
                labels=labels_parse(request.POST.get("labels", "")),
                task_mix=_mix_from(request.POST),
                created_by=request.user,
            )
        except ValidationError as exc:
            error = _errors(exc)
        else:
            messages.success(request, f"Project {project.name} created.")
            return redirect("project-detail", project_id=project.id)
    context = {
        "projects": selectors.projects_for_user(user=request.user),
        "can_create": has_role(request.user, ADMIN),
        "tasks": [(task, TASK_NAMES[task]) for task in TASK_DIMENSION],
        "error": error,
    }
    return render(request, "annotator/projects/list.html", context, status=400 if error else 200)


@login_required
def project_detail(request: HttpRequest, project_id: int) -> HttpResponse:
    project = selectors.project_get(user=request.user, project_id=project_id)
    if request.method == "POST":
        page_require(request, IsAdmin())
        _member_change(request, project)
        return redirect("project-detail", project_id=project.id)
    mix = [(TASK_NAMES[t], project.task_mix.get(t, 0)) for t in TASK_DIMENSION]
    context = {
        "project": project,
        "members": selectors.memberships_of(project=project),
        "candidates": selectors.candidates_by_role(project=project) if has_role(request.user, ADMIN) else {},
        "mix": mix,
        "is_admin": has_role(request.user, ADMIN),
    }
    return render(request, "annotator/projects/detail.html", context)


def _member_change(request: HttpRequest, project: Any) -> None:
    user = get_user_model().objects.filter(id=query_id(request.POST.get("user", "")) or 0).first()
    role = request.POST.get("role", "")
    try:
        if user is None:
            raise ValidationError({"user": "choose a user"})
        if request.POST.get("action") == "remove":
            membership_remove(project=project, user=user, role=role)
            messages.success(request, f"{user.get_username()} left {project.name} (as {role}).")
        else:
            membership_add(project=project, user=user, role=role)
            messages.success(request, f"{user.get_username()} joined {project.name} as {role}.")
    except ValidationError as exc:
        messages.error(request, _errors(exc))


@login_required
def project_assignments(request: HttpRequest, project_id: int) -> HttpResponse:
    """Assign in bulk (balanced or by hand), reassign, and see who has what from both sides."""
    page_require(request, IsAdmin())
    project = selectors.project_get(user=request.user, project_id=project_id)
    if request.method == "POST":
        _assignment_change(request, project)
        return redirect("project-assignments", project_id=project.id)
    return render(
        request,
        "annotator/projects/assignments.html",
        {"project": project, **selectors.assignment_sides(project=project)},
    )


def _ids(request: HttpRequest, name: str) -> list[int]:
    return [i for i in (query_id(v) for v in request.POST.getlist(name)) if i is not None]


def _assignment_change(request: HttpRequest, project: Any) -> None:
    action = request.POST.get("action", "")
    try:
        if action == "reassign":
            scene_id = query_id(request.POST.get("scene", "")) or 0
            scene = selectors.project_scene_get(user=request.user, scene_id=scene_id, project=project)
            to_user = query_id(request.POST.get("to_user", ""))
            from_user = query_id(request.POST.get("from_user", "")) or 0
            scene_reassign(scene=scene, from_user_id=from_user, to_user_id=to_user, assigned_by=request.user)
            messages.success(request, f"Scene {scene.name} reassigned.")
            return
        made = scenes_assign(
            project=project,
            scene_ids=_ids(request, "scenes"),
            annotator_ids=_ids(request, "annotators"),
            balanced=action != "each",
            assigned_by=request.user,
        )
        messages.success(request, f"{len(made)} assignment(s) made.")
    except ValidationError as exc:
        messages.error(request, _errors(exc))
