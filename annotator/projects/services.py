"""Writes to projects and their members (admins; the pages, the API and the commands call these).
Joining or leaving a project changes what the user may see: their access version changes with
it (annotator.apps), so cached answers about images go at once."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.text import slugify

from annotator.access.roles import ANNOTATOR, has_role
from annotator.models import Assignment, Project, ProjectMembership, Scene
from annotator.projects.rules import labels_clean, task_mix_clean
from annotator.projects.selectors import annotator_loads, scene_work


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
def assignment_create(*, scene: Scene, annotator: Any, assigned_by: Any | None) -> Assignment:
    """Give a scene to an annotator; assigning twice returns the existing assignment."""
    if not has_role(annotator, ANNOTATOR):
        raise ValidationError({"annotator": f"{annotator} is not in the annotator role"})
    if not ProjectMembership.objects.filter(project__scenes=scene.pk, user=annotator, role=ANNOTATOR).exists():
        raise ValidationError({"annotator": f"{annotator} is not an annotator of the scene's project"})
    assignment, _ = Assignment.objects.get_or_create(
        scene=scene, annotator=annotator, defaults={"assigned_by": assigned_by}
    )
    return assignment


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


def _annotators_of(*, project: Project, annotator_ids: list[int]) -> list[Any]:
    """The users, who must all be the project's annotators; ValidationError on `annotators` else."""
    users = list(
        get_user_model()
        .objects.filter(id__in=annotator_ids, project_memberships__project=project)
        .filter(project_memberships__role=ProjectMembership.Role.ANNOTATOR)
        .distinct()
    )
    missing = sorted(set(annotator_ids) - {u.id for u in users})
    if missing or not users:
        raise ValidationError({"annotators": f"not annotators of {project}: {missing or 'none chosen'}"})
    return users


def _scenes_of(*, project: Project, scene_ids: list[int]) -> list[int]:
    found = set(Scene.objects.filter(project=project, id__in=scene_ids).values_list("id", flat=True))
    if not scene_ids or found != set(scene_ids):
        raise ValidationError({"scenes": f"not scenes of {project}: {sorted(set(scene_ids) - found) or 'none chosen'}"})
    return scene_ids


@transaction.atomic
def scenes_assign(
    *, project: Project, scene_ids: list[int], annotator_ids: list[int], balanced: bool, assigned_by: Any
) -> list[Assignment]:
    """Assign scenes of the project to its annotators. By hand (`balanced` False): every chosen
    scene to every chosen annotator. Balanced: each scene to one of them, the neediest scenes
    first (no approved item, then fewest items) to whoever has the least remaining work (their
    scenes without an approved item), counting what this call gives. Returns the new assignments;
    a scene an annotator already has is left as it is."""
    users = _annotators_of(project=project, annotator_ids=annotator_ids)
    scenes = _scenes_of(project=project, scene_ids=scene_ids)
    have = set(Assignment.objects.filter(scene_id__in=scenes).values_list("scene_id", "annotator_id"))
    if not balanced:
        pairs = [(s, u) for s in scenes for u in users if (s, u.id) not in have]
    else:
        loads = annotator_loads(project=project, annotator_ids=[u.id for u in users])
        pairs = []
        for scene in scene_work(project=project, scene_ids=scenes):
            if any((scene.id, u.id) in have for u in users):
                continue  # one of them has it already
            user = min(users, key=lambda u: (loads[u.id], u.username))
            loads[user.id] += 1
            pairs.append((scene.id, user))
    made = [Assignment(scene_id=s, annotator=u, assigned_by=assigned_by) for s, u in pairs]
    for assignment in made:
        assignment.save()  # one by one: each announces the scene gained (access cache)
    return made


@transaction.atomic
def scene_reassign(*, scene: Scene, from_user_id: int, to_user_id: int | None, assigned_by: Any) -> Assignment | None:
    """Take the scene from one annotator (they lose it at once: the scopes read assignments on
    every request and the access version changes for cached answers) and, when given, give it to
    another annotator of its project. Their marks and items stay theirs."""
    current = Assignment.objects.select_for_update().filter(scene=scene, annotator_id=from_user_id).first()
    if current is None:
        raise ValidationError({"from": "this annotator does not have the scene"})
    new = None
    if to_user_id is not None:
        if to_user_id == from_user_id:
            raise ValidationError({"to": "choose another annotator"})
        (user,) = _annotators_of(project=scene.project, annotator_ids=[to_user_id])
        new, _ = Assignment.objects.get_or_create(scene=scene, annotator=user, defaults={"assigned_by": assigned_by})
    current.delete()
    return new
