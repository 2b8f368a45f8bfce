"""Reads of projects, their members and how their scenes are assigned, scoped to the user asking
(annotator.access.scopes). Lists annotate or prefetch what they show: their query count does not
grow with the rows."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Prefetch, Q, QuerySet
from django.http import Http404

from annotator.access.scopes import in_member_projects, project_get_visible, projects_visible
from annotator.models import Assignment, Item, Project, ProjectMembership, Scene


def projects_for_user(*, user: Any) -> QuerySet[Project]:
    """The user's projects with their scene and member counts (one query)."""
    return projects_visible(user=user).annotate(
        scene_count=Count("scenes", distinct=True), member_count=Count("memberships__user", distinct=True)
    )


def project_get(*, user: Any, project_id: int) -> Project:
    """A project of the user's; 404 for the rest."""
    return project_get_visible(user=user, project_id=project_id)


def memberships_of(*, project: Project) -> QuerySet[ProjectMembership]:
    return ProjectMembership.objects.filter(project=project).select_related("user").order_by("role", "user__username")


def candidates_by_role(*, project: Project) -> dict[str, list[Any]]:
    """Per role, the users who hold it (their group) and are not yet the project's member in it."""
    taken = set(ProjectMembership.objects.filter(project=project).values_list("user_id", "role"))
    users = get_user_model().objects.filter(is_active=True, groups__name__in=ProjectMembership.Role.values)
    pairs = users.values_list("id", "username", "groups__name").order_by("username")
    out: dict[str, list[Any]] = {role: [] for role in ProjectMembership.Role.values}
    for user_id, username, role in pairs:
        if (user_id, role) not in taken:
            out[role].append({"id": user_id, "username": username})
    return out


def scene_work(*, project: Project, scene_ids: list[int] | None = None) -> QuerySet[Scene]:
    """The project's scenes with their item counts, neediest first: scenes without an approved item
    before the others, then those with fewer items (what balanced assignment hands out first)."""
    qs = Scene.objects.filter(project=project)
    if scene_ids is not None:
        qs = qs.filter(id__in=scene_ids)
    live = ~Q(items__state=Item.State.WITHDRAWN) & Q(items__replaced_by__isnull=True)
    return qs.annotate(
        item_count=Count("items", filter=live, distinct=True),
        approved_count=Count("items", filter=Q(items__state=Item.State.APPROVED), distinct=True),
    ).order_by("approved_count", "item_count", "id")


def annotator_loads(*, project: Project, annotator_ids: list[int]) -> dict[int, int]:
    """Remaining work per annotator: their scenes in the project that have no approved item yet."""
    done = Scene.objects.filter(project=project, items__state=Item.State.APPROVED).values("id")
    rows = (
        Assignment.objects.filter(scene__project=project, annotator_id__in=annotator_ids)
        .exclude(scene_id__in=done)
        .values("annotator_id")
        .annotate(n=Count("id"))
        .values_list("annotator_id", "n")
    )
    return dict.fromkeys(annotator_ids, 0) | dict(rows)


def assignment_sides(*, project: Project) -> dict[str, Any]:
    """The assignment seen from both sides: each scene with its annotators (and its work), each
    annotator member with their scenes in the project. Three queries whatever the size."""
    ordered = Assignment.objects.select_related("annotator").order_by("annotator__username")
    scenes = list(scene_work(project=project).prefetch_related(Prefetch("assignments", queryset=ordered)))
    members = memberships_of(project=project).filter(role=ProjectMembership.Role.ANNOTATOR)
    sides: dict[int, dict[str, Any]] = {m.user_id: {"user": m.user, "scenes": []} for m in members}
    for scene in scenes:
        for a in scene.assignments.all():
            sides.setdefault(a.annotator_id, {"user": a.annotator, "scenes": []})["scenes"].append(scene)
    return {
        "scenes": sorted(scenes, key=lambda s: s.name),
        "annotators": sorted(sides.values(), key=lambda side: side["user"].username),
    }


def project_scene_get(*, user: Any, scene_id: int, project: Project | None = None) -> Scene:
    """A scene of one of the user's projects (of `project` when given), with its project; 404 for
    the rest."""
    scenes = in_member_projects(user=user, qs=Scene.objects.select_related("project"), path="project")
    if project is not None:
        scenes = scenes.filter(project=project)
    found = scenes.filter(id=scene_id).first()
    if found is None:
        raise Http404("no such scene")
    return found
