from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from annotator.access.roles import ADJUDICATOR, ADMIN, ANNOTATOR, REVIEWER
from annotator.models import ProjectMembership, Scene, project_default_id

DEMO_USERS = [
    ("admin", ADMIN),
    ("annotator", ANNOTATOR),
    ("annotator2", ANNOTATOR),
    ("reviewer1", REVIEWER),
    ("reviewer2", REVIEWER),
    ("adjudicator", ADJUDICATOR),
]


class Command(BaseCommand):
    help = "Create demo users for each role (printing their passwords) and import the demo scenes."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--manifest", type=Path, default=Path(settings.BASE_DIR) / "demo" / "manifest.json")
        parser.add_argument(
            "--credentials",
            type=Path,
            default=Path(settings.MEDIA_ROOT).parent / "demo-credentials.txt",
            help="where generated passwords are kept between runs",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        passwords = self._passwords(opts["credentials"])
        User = get_user_model()  # noqa: N806
        for username, role in DEMO_USERS:
            user, _ = User.objects.get_or_create(username=username, defaults={"email": f"{username}@example.org"})
            user.set_password(passwords[username])
            user.is_staff = user.is_superuser = role == ADMIN
            user.save()
            user.groups.set([Group.objects.get(name=role)])
            ProjectMembership.objects.get_or_create(project_id=project_default_id(), user=user, role=role)
        existing = list(Scene.objects.filter(name__in=self._names(opts["manifest"])))
        call_command(
            "import_scenes",
            str(opts["manifest"]),
            "--as-user",
            "admin",
            "--skip-existing",
            stdout=self.stdout,
            stderr=self.stderr,
        )
        self._new_kinds(existing)
        self.stdout.write(self.style.SUCCESS("\nDemo users (role: username / password):"))
        for username, role in DEMO_USERS:
            self.stdout.write(f"  {role:<10} {username:<11} / {passwords[username]}")

    def _names(self, manifest: Path) -> list[str]:
        from annotator.intake.manifest import read_manifest

        return [row.spec.name.strip() for row in read_manifest(manifest) if row.spec is not None]

    def _new_kinds(self, scenes: list[Scene]) -> None:
        """Demo scenes seeded by an earlier release lack the job kinds added since (the placements):
        the graph creates them, and those that never ran are sent (the rest follow their inputs)."""
        if not scenes:
            return
        from annotator.models import MediaJob
        from annotator.processing import graph
        from annotator.processing.tasks import enqueue_jobs

        jobs = graph.jobs_for_scenes(scenes=scenes)
        fresh = [j for j in jobs if j.state == MediaJob.State.PENDING and j.attempts == 0]
        if fresh:
            enqueue_jobs(jobs=fresh)
            kinds = ", ".join(sorted({j.kind for j in fresh}))
            self.stdout.write(f"queued {len(fresh)} job(s) the demo scenes lacked ({kinds})")

    def _passwords(self, path: Path) -> dict[str, str]:
        """Random per install, kept in a file next to the media folder so a restart keeps them."""
        known: dict[str, str] = {}
        if path.is_file():
            for line in path.read_text().splitlines():
                name, _, pw = line.partition(" ")
                if name and pw:
                    known[name] = pw
        for username, _ in DEMO_USERS:
            known.setdefault(username, secrets.token_urlsafe(9))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"{n} {p}\n" for n, p in known.items()))
        path.chmod(0o600)
        return known
