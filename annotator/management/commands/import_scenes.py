from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from annotator.intake.manifest import ManifestError, read_manifest
from annotator.intake.services import scene_import
from annotator.models import DEFAULT_PROJECT_SLUG


class Command(BaseCommand):
    help = "Import scenes (video + satellite images) from a JSON or CSV manifest; each row all-or-nothing."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("manifest", type=Path)
        parser.add_argument("--as-user", default=None, help="username recorded as the importer")
        parser.add_argument("--skip-existing", action="store_true", help="skip rows whose scene name exists")
        parser.add_argument(
            "--project", default=DEFAULT_PROJECT_SLUG, help="slug of the project the scenes go to (default: default)"
        )
        parser.add_argument(
            "--root",
            type=Path,
            default=None,
            help="folder every media path must lie under (default: the manifest's folder)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            rows = read_manifest(opts["manifest"], root=opts["root"])
        except ManifestError as exc:
            raise CommandError(str(exc)) from exc
        user = get_user_model().objects.filter(username=opts["as_user"]).first() if opts["as_user"] else None
        from annotator.models import Project, Scene, project_default_id

        if opts["project"] == DEFAULT_PROJECT_SLUG:
            project_default_id()  # made on first use, like the model's default
        project = Project.objects.filter(slug=opts["project"]).first()
        if project is None:
            known = ", ".join(Project.objects.values_list("slug", flat=True))
            raise CommandError(f"no project {opts['project']!r} (projects: {known})")

        failures, created = [], 0
        for row in tqdm(rows, desc="import", unit="scene", disable=len(rows) < 2):
            if row.spec is None:
                failures.append(f"row {row.number}: {row.error}")
                continue
            if opts["skip_existing"] and Scene.objects.filter(name=row.spec.name.strip()).exists():
                continue
            try:
                scene = scene_import(spec=row.spec, created_by=user, project=project)
            except ValidationError as exc:
                detail = "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
                failures.append(f"row {row.number} ({row.spec.name}): {detail}")
            else:
                created += 1
                self.stdout.write(f"row {row.number}: created scene {scene.id} {scene.name!r}")
        for line in failures:
            self.stderr.write(self.style.ERROR(line))
        self.stdout.write(f"{created} scene(s) created, {len(failures)} row(s) failed")
        if failures:
            raise CommandError(f"{len(failures)} row(s) could not be imported; nothing was created for them")
