"""The media half of a backup: every stored file, read and written through Django's storage API
only, so the same code serves a local folder and an S3 bucket."""

from __future__ import annotations

import tarfile
from collections.abc import Callable
from contextlib import suppress
from typing import Any

from django.core.files import File
from django.core.files.storage import default_storage

from config.backup.archive import CHUNK, BackupError, HashingReader, media_member


def stored_names() -> list[str]:
    """Every file in the storage, as storage names, sorted."""
    names: list[str] = []
    pending = [""]
    while pending:
        folder = pending.pop()
        try:
            dirs, files = default_storage.listdir(folder)
        except FileNotFoundError:  # a local media folder not made yet holds nothing
            continue
        prefix = f"{folder}/" if folder else ""
        pending.extend(prefix + d for d in dirs)
        names.extend(prefix + f for f in files)
    return sorted(names)


def storage_is_empty() -> bool:
    return not stored_names()


def media_add(tar: tarfile.TarFile, *, name: str, mtime: float, on_bytes: Callable[[int], None]) -> dict[str, Any]:
    """Copy one stored file into the archive, hashing it on the way; returns its manifest entry.
    Raises FileNotFoundError when the file went away after it was listed."""
    size = default_storage.size(name)
    info = tarfile.TarInfo(media_member(name))
    info.size, info.mtime, info.mode = size, int(mtime), 0o644
    with default_storage.open(name, "rb") as fh:
        reader = HashingReader(fh, on_bytes)
        # addfile copies exactly `size` bytes and fails on a file that shrank meanwhile; a file that
        # grew is archived (and hashed) as it was when listed.
        tar.addfile(info, reader)  # type: ignore[arg-type]
    return {"name": name, "size": size, "sha256": reader.hexdigest()}


def media_write(tar: tarfile.TarFile, *, entry: dict[str, Any], on_bytes: Callable[[int], None]) -> str:
    """Store one archived file under its own name, checking its sha256 as it streams. Returns the
    name written; raises BackupError (after removing what it wrote) when it does not match."""
    name = entry["name"]
    fh = tar.extractfile(media_member(name))
    if fh is None:
        raise BackupError(f"{media_member(name)}: not a regular file")
    reader = HashingReader(fh, on_bytes)
    stored = default_storage.save(name, File(reader, name=name.rsplit("/", 1)[-1]))  # type: ignore[arg-type]
    # drain what the storage did not read (nothing, normally) so the digest covers the whole member
    while reader.read(CHUNK):
        pass
    if stored != name:
        media_delete([stored])
        raise BackupError(f"{name}: the storage already has a file of that name (it stored {stored} instead)")
    if reader.size != entry["size"] or reader.hexdigest() != entry["sha256"]:
        media_delete([stored])
        raise BackupError(f"{name}: sha256 does not match the manifest; the archive is damaged or was altered")
    return stored


def media_delete(names: list[str]) -> None:
    for name in names:
        with suppress(OSError):
            default_storage.delete(name)
