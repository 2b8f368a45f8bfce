"""The Makefile's install step, run for real in a scratch copy (its own venv, a one-module project):
pip's "Location ... is ignored" lines about local index folders that lack a package are dropped,
everything else pip says and its exit status are kept."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
IGNORED = re.compile(r"^WARNING: Location '[^']*' is ignored", re.MULTILINE)
PROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "scratch"
version = "0"

[project.optional-dependencies]
dev = [{dev}]

[tool.setuptools]
py-modules = ["scratch"]
"""


def _local_index_folders() -> list[str]:
    """The file:// index folders the machine's pip configuration names (where the noise comes from)."""
    out = subprocess.run(["python3", "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    return re.findall(r"file://(/[^\s']+)", out)


def _make(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "deps", "PYTHON=python3"], cwd=folder, capture_output=True, text=True, timeout=600,
        env={**os.environ, "MAKEFLAGS": ""},
    )  # fmt: skip


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_deps_drops_the_ignored_location_warnings_and_keeps_errors(tmp_path: Path) -> None:
    folders = _local_index_folders()
    if not folders:
        pytest.skip("this machine's pip configuration names no local index folder, so pip has nothing to warn about")
    # given a scratch copy of the Makefile and a project that needs nothing
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "scratch.py").write_text("")
    (tmp_path / "pyproject.toml").write_text(PROJECT.format(dev=""))
    # pip itself (upgraded first) is missing from at least one of those folders: the warning pip gives
    missing = [f for f in folders if not (Path(f) / "pip").is_dir()]

    # when deps runs, then it installs, quietly
    done = _make(tmp_path)
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.glob(".venv/.installed-*")) and (tmp_path / ".venv/bin/python").exists()
    assert not IGNORED.search(done.stdout + done.stderr)
    if missing:  # the same pip call without the filter does warn: the test saw the noise it removes
        raw = subprocess.run(
            [str(tmp_path / ".venv/bin/python"), "-m", "pip", "install", "-q", "--upgrade", "pip"],
            capture_output=True, text=True,
        )  # fmt: skip
        assert IGNORED.search(raw.stderr)

    # when a dependency cannot be found, then pip's error shows and make fails, without the noise
    (tmp_path / "pyproject.toml").write_text(PROJECT.format(dev='"skymark-no-such-package-zz"'))
    failed = _make(tmp_path)
    assert failed.returncode != 0
    assert "ERROR: Could not find a version that satisfies the requirement skymark-no-such-package-zz" in failed.stderr
    assert not IGNORED.search(failed.stdout + failed.stderr)
    assert len(list(tmp_path.glob(".venv/.installed-*"))) == 1  # the failed install left no stamp of its own
