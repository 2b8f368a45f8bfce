"""config.backup.archive and the tool checks: hostile manifests are refused before anything is read
into the instance, and a pg_dump older than the server is refused with what to install."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from config.backup.archive import BackupError, archive_open, manifest_read, safe_name
from config.backup.database import pg_tool


@pytest.mark.parametrize("name", ["../etc/passwd", "/etc/passwd", "videos/../../x", "a//b", "a\\b", "", 7, "./a"])
def test_names_that_could_leave_the_storage_are_refused(name: object) -> None:
    with pytest.raises(BackupError):
        safe_name(name)


def test_a_plain_storage_name_passes() -> None:
    assert safe_name("videos/2026/11/clip name.mp4") == "videos/2026/11/clip name.mp4"


def _archive(tmp_path: Path, manifest: object) -> Path:
    path = tmp_path / "a.tar"
    data = json.dumps(manifest).encode()
    with tarfile.open(path, "w") as tar:
        info = tarfile.TarInfo("manifest.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return path


GOOD = {
    "format": "skymark-backup",
    "format_version": 1,
    "backend": "sqlite",
    "database": {"sha256": "0" * 64, "size": 1},
    "tables": {},
    "migrations": [],
    "media": [{"name": "videos/a.mp4", "size": 1, "sha256": "0" * 64}],
}


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ({**GOOD, "media": [{"name": "../../outside", "size": 1, "sha256": "x"}]}, "outside the storage"),
        ({**GOOD, "format": "other"}, "not a Skymark backup"),
        ({**GOOD, "format_version": 99}, "format version 99"),
        ({**GOOD, "backend": "oracle"}, "unknown database backend"),
        ({k: v for k, v in GOOD.items() if k != "tables"}, "lacks a field"),
        ([1, 2], "not a Skymark backup"),
    ],
)
def test_manifest_is_checked_before_anything_else(tmp_path: Path, manifest: object, message: str) -> None:
    path = _archive(tmp_path, manifest)
    with archive_open(path) as tar, pytest.raises(BackupError) as err:
        manifest_read(tar, path=path)
    assert message in str(err.value)


def test_good_manifest_reads(tmp_path: Path) -> None:
    path = _archive(tmp_path, GOOD)
    with archive_open(path) as tar:
        assert manifest_read(tar, path=path)["media"][0]["name"] == "videos/a.mp4"


def test_not_a_tar_is_a_sentence(tmp_path: Path) -> None:
    path = tmp_path / "notes.tar"
    path.write_text("hello\n")
    with pytest.raises(BackupError) as err, archive_open(path):
        pass
    assert "damaged or truncated" in str(err.value)


def test_pg_dump_older_than_the_server_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # given a pg_dump 9.6 first on PATH (a machine with an old client package)
    old = tmp_path / "pg_dump"
    old.write_text("#!/bin/sh\necho 'pg_dump (PostgreSQL) 9.6.24'\n")
    old.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")

    # then it is refused for a PostgreSQL 15 server, with what to install
    with pytest.raises(BackupError) as err:
        pg_tool("pg_dump", at_least=15)
    assert "pg_dump 9 is older than PostgreSQL 15" in str(err.value) and "postgresql-client-15" in str(err.value)
    # and a missing one says how to get it
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    with pytest.raises(BackupError) as err:
        pg_tool("pg_dump", at_least=15)
    assert "scripts/system-deps.sh" in str(err.value)
