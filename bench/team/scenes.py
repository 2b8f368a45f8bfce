"""The demo scenes imported as `make run` imports them, processed in this process, and the team of
annotators they are given to."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command

from annotator.access.roles import ANNOTATOR
from annotator.models import Scene
from annotator.projects.services import assignment_create, membership_add


def import_demo(*, kinds: list[str] | None = None) -> list[Any]:
    """The demo users and scenes as `make run` makes them, each scene processed here (all jobs, or
    only `kinds`) and given to both demo annotators."""
    out = StringIO()
    credentials = Path(settings.MEDIA_ROOT).parent / "demo-credentials.txt"
    call_command("seed_demo", credentials=credentials, stdout=out, stderr=out)
    scenes = list(Scene.objects.order_by("id"))
    args = [str(s.id) for s in scenes] + [f"--kind={k}" for k in kinds or []]
    call_command("process_scenes", *args, stdout=out, stderr=out)
    users = get_user_model().objects
    admin = users.get(username="admin")
    for scene in scenes:
        assignment_create(scene=scene, annotator=users.get(username="annotator2"), assigned_by=admin)
    return scenes


def team_member(n: int, admin: Any, scenes: list[Any]) -> Any:
    """The demo's annotators first, then more, each given every scene (as an admin would)."""
    username = "annotator" if n == 0 else f"annotator{n + 1}"
    user, created = get_user_model().objects.get_or_create(username=username)
    if created:
        user.set_unusable_password()
        user.save()
        user.groups.set([Group.objects.get(name=ANNOTATOR)])
        membership_add(project=scenes[0].project, user=user, role=ANNOTATOR)  # the demo's, the default project
        for scene in scenes:
            assignment_create(scene=scene, annotator=user, assigned_by=admin)
    return user
