"""The archive's layout and its manifest: what a backup holds, and the checks a restore makes on it
before it touches anything.

    media/<storage name>          every stored file, byte for byte
    database/skymark.sqlite3      (SQLite) or database/skymark.pgdump (pg_dump's custom format)
    manifest.json                 written last: an archive without it is incomplete
"""

from __future__ import annotations

import hashlib
import json
import tarfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import IO, Any

FORMAT = "skymark-backup"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
MEDIA = "media/"
DATABASE_MEMBERS = {"sqlite": "database/skymark.sqlite3", "postgresql": "database/skymark.pgdump"}
CHUNK = 1 << 20


class BackupError(Exception):
    """A backup or restore that cannot go on; the message says why and what to do."""


class HashingReader:
    """Reads through a file object, counting bytes and hashing them (sha256) on the way."""

    closed = False

    def __init__(self, raw: IO[bytes], on_bytes: Callable[[int], None] | None = None) -> None:
        self.raw, self.on_bytes = raw, on_bytes
        self.digest, self.size = hashlib.sha256(), 0

    def read(self, n: int = -1) -> bytes:
        data = self.raw.read(n)
        self.digest.update(data)
        self.size += len(data)
        if self.on_bytes:
            self.on_bytes(len(data))
        return data

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:  # storages must not rewind a stream that is being hashed
        return False

    def hexdigest(self) -> str:
        return self.digest.hexdigest()


def media_member(name: str) -> str:
    return MEDIA + name


def safe_name(name: object) -> str:
    """A stored file name from an archive, refused when it could leave the storage's root."""
    if not isinstance(name, str) or not name or "\\" in name or "\0" in name:
        raise BackupError(f"manifest lists an invalid media name: {name!r}")
    path = PurePosixPath(name)
    if path.is_absolute() or any(part in ("", ".", "..") for part in name.split("/")):
        raise BackupError(f"manifest lists a media name outside the storage: {name!r}")
    return name


@contextmanager
def archive_open(path: Path) -> Iterator[tarfile.TarFile]:
    """The archive for reading; a file that is not a tar (or is cut short) is a BackupError."""
    try:
        with tarfile.open(path, "r:") as tar:
            yield tar
    except (tarfile.TarError, EOFError) as exc:
        raise BackupError(f"{path.name}: the archive is damaged or truncated ({exc})") from exc
    except FileNotFoundError as exc:
        raise BackupError(f"{path}: no such file") from exc


def manifest_read(tar: tarfile.TarFile, *, path: Path) -> dict[str, Any]:
    """The manifest, checked for its format and version and for the shape a restore relies on."""
    try:
        member = tar.getmember(MANIFEST)
        fh = tar.extractfile(member)
        if fh is None:
            raise KeyError(MANIFEST)
        manifest = json.loads(fh.read())
    except KeyError as exc:
        raise BackupError(
            f"{path.name}: no {MANIFEST} in the archive; it is incomplete (a backup that did not finish, "
            "or a truncated copy)"
        ) from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise BackupError(f"{path.name}: {MANIFEST} is not valid JSON ({exc})") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError(f"{path.name}: not a Skymark backup (no '{FORMAT}' manifest)")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise BackupError(
            f"{path.name}: archive format version {version!r}; this Skymark reads version {FORMAT_VERSION} "
            "(restore it with the Skymark version that made it)"
        )
    try:
        if manifest["backend"] not in DATABASE_MEMBERS:
            raise BackupError(f"{path.name}: unknown database backend {manifest['backend']!r}")
        for entry in manifest["media"]:
            safe_name(entry["name"])
            int(entry["size"]), str(entry["sha256"])
        manifest["database"]["sha256"], int(manifest["database"]["size"])
        dict(manifest["tables"]), list(manifest["migrations"])
    except (KeyError, TypeError, ValueError) as exc:
        raise BackupError(f"{path.name}: {MANIFEST} lacks a field a restore needs ({exc})") from exc
    return manifest


def expected_members(manifest: dict[str, Any]) -> dict[str, tuple[int, str]]:
    """Every member the manifest promises, with its size and sha256."""
    expected = {media_member(e["name"]): (int(e["size"]), e["sha256"]) for e in manifest["media"]}
    db = manifest["database"]
    expected[DATABASE_MEMBERS[manifest["backend"]]] = (int(db["size"]), db["sha256"])
    return expected


def archive_verify(tar: tarfile.TarFile, manifest: dict[str, Any], *, on_bytes: Callable[[int], None]) -> None:
    """Read every member once and compare it with the manifest: size and sha256 equal, nothing
    missing, nothing extra, no member twice. Raises BackupError naming the first member that differs."""
    expected = expected_members(manifest)
    seen: set[str] = set()
    for member in tar:
        if member.name == MANIFEST:
            continue
        if member.name not in expected or member.name in seen or not member.isreg():
            raise BackupError(f"{member.name}: in the archive but not (or not once) in its manifest")
        seen.add(member.name)
        size, sha = expected[member.name]
        fh = tar.extractfile(member)
        assert fh is not None  # a regular file
        reader = HashingReader(fh, on_bytes)
        while reader.read(CHUNK):
            pass
        if reader.size != size or reader.hexdigest() != sha:
            raise BackupError(
                f"{member.name}: sha256 {reader.hexdigest()[:12]}… ({reader.size} bytes) does not match the "
                f"manifest's {sha[:12]}… ({size} bytes); the archive is damaged or was altered"
            )
    if missing := sorted(set(expected) - seen):
        raise BackupError(f"the archive lacks {len(missing)} file(s) its manifest lists, e.g. {missing[0]}")
