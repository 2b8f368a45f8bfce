"""backup_create and backup_restore: one tar holding the database and every media file, and its
restore into an empty instance, all or nothing."""

from __future__ import annotations

import json
import os
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path
from typing import Any

from django.core.files.storage import default_storage
from django.core.management import call_command
from django.db import connection
from django.db.migrations.loader import MigrationLoader

from config.backup import database, media
from config.backup.archive import (
    DATABASE_MEMBERS,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    BackupError,
    HashingReader,
    archive_open,
    archive_verify,
    manifest_read,
)

# progress(description, total, unit) -> a context whose value is called with each amount done
Progress = Callable[[str, int, str], AbstractContextManager[Callable[[int], None]]]


@contextmanager
def _no_progress(description: str, total: int, unit: str) -> Iterator[Callable[[int], None]]:
    yield lambda n: None


@dataclass
class Restored:
    manifest: dict[str, Any]
    migrated: list[str]  # migrations applied after the load (the archive was older than the code)


# ---- backup ----------------------------------------------------------------------------------


def backup_create(*, out: Path, progress: Progress = _no_progress) -> dict[str, Any]:
    """Write a backup of this instance to `out` and return its manifest.

    The database is snapshotted first; then every file the storage holds is copied, so a file
    written later is at worst an extra file nothing references, and a file the snapshot references
    must be in the archive (checked: one deleted meanwhile fails the backup). The archive is written
    beside `out` and renamed into place when complete; nothing is left behind on failure."""
    _check_outside_media(out)
    partial = out.with_name(f".{out.name}.partial")
    try:
        with tempfile.TemporaryDirectory(prefix="skymark-backup-") as tmp:
            dump, facts, info = database.snapshot(folder=Path(tmp))
            manifest = _manifest_start(info, facts)
            with tarfile.open(partial, "w", format=tarfile.PAX_FORMAT) as tar:
                manifest["media"] = _media_copy(tar, facts.references, progress)
                manifest["database"] |= _add_file(tar, dump, DATABASE_MEMBERS[info["backend"]])
                _add_bytes(tar, MANIFEST, json.dumps(manifest, indent=1, sort_keys=True).encode())
        os.replace(partial, out)
    finally:
        partial.unlink(missing_ok=True)
    return manifest


def _check_outside_media(out: Path) -> None:
    """An archive written into a local media folder would be listed, and copied into itself."""
    try:
        root = Path(default_storage.path("")).resolve()
    except NotImplementedError:  # a bucket: OUT is local, so never inside it
        return
    if out.resolve().is_relative_to(root):
        raise BackupError(f"{out}: write the backup outside the media folder ({root})")


def _manifest_start(info: dict[str, Any], facts: database.Facts) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "backend": info["backend"],
        "database": {k: v for k, v in info.items() if k != "backend"},
        "migrations": facts.migrations,
        "tables": facts.tables,
        "referenced_files": len(facts.references),
    }


def _media_copy(tar: tarfile.TarFile, references: set[str], progress: Progress) -> list[dict[str, Any]]:
    names = media.stored_names()
    if missing := sorted(references - set(names)):
        raise BackupError(_missing_message(missing))
    entries, now = [], time.time()
    with progress("media", len(names), "file") as step:
        for name in names:
            try:
                entries.append(media.media_add(tar, name=name, mtime=now, on_bytes=lambda n: None))
            except FileNotFoundError:
                if name in references:
                    raise BackupError(_missing_message([name])) from None
            step(1)  # a file deleted since listing was written to nothing the snapshot needs
    return entries


def _missing_message(missing: list[str]) -> str:
    return (
        f"the database references {len(missing)} stored file(s) the storage does not have, e.g. {missing[0]}; "
        "if files were being replaced while the backup ran, run it again"
    )


def _add_file(tar: tarfile.TarFile, path: Path, member: str) -> dict[str, Any]:
    info = tar.gettarinfo(str(path), arcname=member)
    info.mode, info.uid, info.gid, info.uname, info.gname = 0o600, 0, 0, "", ""
    with path.open("rb") as fh:
        reader = HashingReader(fh)
        tar.addfile(info, reader)  # type: ignore[arg-type]
    return {"member": member, "size": reader.size, "sha256": reader.hexdigest()}


def _add_bytes(tar: tarfile.TarFile, member: str, data: bytes) -> None:
    info = tarfile.TarInfo(member)
    info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
    tar.addfile(info, BytesIO(data))


# ---- restore ---------------------------------------------------------------------------------


def backup_restore(*, archive: Path, force: bool = False, progress: Progress = _no_progress) -> Restored:
    """Restore `archive` into this instance, which must be empty (no rows but what `migrate` writes,
    no stored files) unless `force`: then, once the archive has been verified, its tables are
    dropped and its stored files deleted first.

    All or nothing: every member is checked against the manifest (sha256) before anything is
    written; a failure while writing removes the files written and leaves the database empty.
    Afterwards the migrations this code has and the archive lacks are applied."""
    with archive_open(archive) as tar:
        manifest = manifest_read(tar, path=archive)
        _check_compatible(manifest, archive)
        if not force:
            _check_empty()
        database.database_load_check(manifest=manifest)
        total = sum(int(e["size"]) for e in manifest["media"]) + int(manifest["database"]["size"])
        with progress("verifying", total, "B") as step:
            archive_verify(tar, manifest, on_bytes=step)
        if force:
            media.media_delete(media.stored_names())
            database.database_clear()
        written = _media_restore(tar, manifest, progress)
        try:
            _database_restore(tar, manifest)
        except BaseException:
            media.media_delete(written)
            database.database_clear()
            raise
    connection.close()
    migrated = _migrate()
    database.database_analyze()
    return Restored(manifest=manifest, migrated=migrated)


def _check_compatible(manifest: dict[str, Any], archive: Path) -> None:
    if manifest["backend"] != database.vendor():
        raise BackupError(
            f"{archive.name} holds a {manifest['backend']} database and this instance uses {database.vendor()}: "
            "restore it into an instance on the same database"
        )
    known = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    if unknown := sorted(f"{a}.{n}" for a, n in manifest["migrations"] if (a, n) not in known):
        raise BackupError(
            f"{archive.name} was made by a newer Skymark (its database has migration {unknown[0]}, which this "
            "code lacks): restore it with that version"
        )


def _check_empty() -> None:
    tables = database.data_tables()
    stored = media.stored_names()
    if tables or stored:
        what = []
        if tables:
            what.append(f"its database has rows in {len(tables)} table(s) (e.g. {', '.join(tables[:3])})")
        if stored:
            what.append(f"its media storage has {len(stored)} file(s) (e.g. {stored[0]})")
        raise BackupError(
            f"restore goes into an empty instance only, and this one is not: {'; '.join(what)}. "
            "Use --force to delete them and restore over them."
        )


def _media_restore(tar: tarfile.TarFile, manifest: dict[str, Any], progress: Progress) -> list[str]:
    written: list[str] = []
    total = sum(int(e["size"]) for e in manifest["media"])
    try:
        with progress("media", total, "B") as step:
            for entry in manifest["media"]:
                written.append(media.media_write(tar, entry=entry, on_bytes=step))
    except BaseException:
        media.media_delete(written)
        raise
    return written


def _database_restore(tar: tarfile.TarFile, manifest: dict[str, Any]) -> None:
    member = DATABASE_MEMBERS[manifest["backend"]]
    with tempfile.TemporaryDirectory(prefix="skymark-restore-") as tmp:
        dump = Path(tmp) / member.rsplit("/", 1)[-1]
        src = tar.extractfile(member)
        assert src is not None  # archive_verify saw a regular file
        with dump.open("wb") as dst:
            reader = HashingReader(src)
            while chunk := reader.read(1 << 20):
                dst.write(chunk)
        if reader.hexdigest() != manifest["database"]["sha256"]:
            raise BackupError(f"{member}: sha256 does not match the manifest; the archive changed while restoring")
        database.database_load(dump=dump, manifest=manifest)
    connection.close()
    restored = database.live_facts().tables
    if differ := sorted(t for t, n in manifest["tables"].items() if restored.get(t) != n):
        raise BackupError(
            f"the restored database differs from the manifest in {len(differ)} table(s), e.g. {differ[0]} "
            f"({restored.get(differ[0])} rows, the manifest says {manifest['tables'][differ[0]]})"
        )


def _migrate() -> list[str]:
    loader = MigrationLoader(connection)
    before = set(loader.applied_migrations)
    call_command("migrate", interactive=False, verbosity=0)
    after = set(MigrationLoader(connection).applied_migrations)
    return sorted(f"{app}.{name}" for app, name in after - before)
