from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.backup.archive import BackupError
from config.backup.progress import tqdm_progress
from config.backup.services import backup_create


class Command(BaseCommand):
    help = (
        "Write a backup of this instance to OUT (a tar): a consistent snapshot of the database "
        "(SQLite's backup API or pg_dump) and every stored media file, with a manifest of sha256s."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("out", type=Path, help="the archive to write, e.g. skymark-2026-11-27.tar")

    def handle(self, *args: Any, **opts: Any) -> None:
        out: Path = opts["out"]
        if out.is_dir() or not out.parent.is_dir():
            raise CommandError(f"{out}: give a file name in an existing folder")
        try:
            manifest = backup_create(out=out, progress=tqdm_progress)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        rows = sum(manifest["tables"].values())
        size = sum(e["size"] for e in manifest["media"])
        self.stdout.write(
            f"{out}: {manifest['backend']} database ({rows} rows in {len(manifest['tables'])} tables), "
            f"{len(manifest['media'])} media file(s), {size / 1e6:.1f} MB"
        )
