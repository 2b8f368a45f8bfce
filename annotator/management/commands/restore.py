from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.backup.archive import BackupError
from config.backup.progress import tqdm_progress
from config.backup.services import backup_restore


class Command(BaseCommand):
    help = (
        "Restore a backup written by `manage.py backup` into this instance, which must be empty. "
        "Every file's sha256 is checked before anything is written; on any failure nothing is left behind."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("archive", type=Path, help="the tar written by `manage.py backup`")
        parser.add_argument(
            "--force",
            action="store_true",
            help="restore into an instance that is not empty: once the archive is verified, DROP every table "
            "of its database and DELETE every file of its media storage, then restore",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            restored = backup_restore(archive=opts["archive"], force=opts["force"], progress=tqdm_progress)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        manifest = restored.manifest
        rows = sum(manifest["tables"].values())
        self.stdout.write(
            f"restored {opts['archive']} (made {manifest['created_at']}): {rows} rows, "
            f"{len(manifest['media'])} media file(s), every sha256 verified"
        )
        if restored.migrated:
            self.stdout.write(f"applied {len(restored.migrated)} newer migration(s): {', '.join(restored.migrated)}")
