"""Settings read from the environment: the embedded default finds its own key, and production
settings pass `check --deploy` (each run in a fresh process, as `manage.py` would be)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

LONG_KEY = "k" * 20 + "-production-secret-key-0123456789abcdefghijklmnop"


def _manage(*args: str, data_dir: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DJANGO_DEBUG", "SKYMARK_HTTPS"}}
    env.update({"SKYMARK_DATA_DIR": str(data_dir), "PYTHONPATH": str(settings.BASE_DIR), **extra})
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_manage_py_finds_the_key_make_run_wrote(tmp_path: Path) -> None:
    # Given the key file `make run` writes into the data folder, and no SECRET_KEY exported
    (tmp_path / "secret_key").write_text("file-key-" + "x" * 50 + "\n")

    # When any manage.py command starts
    done = _manage("shell", "-c", "from django.conf import settings; print(settings.SECRET_KEY)", data_dir=tmp_path)

    # Then it runs with that key
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "file-key-" + "x" * 50


def test_without_any_key_the_error_says_how_to_get_one(tmp_path: Path) -> None:
    done = _manage("check", data_dir=tmp_path)

    assert done.returncode != 0
    assert "SECRET_KEY is not set" in done.stderr
    assert str(tmp_path / "secret_key") in done.stderr


def test_production_settings_from_the_environment_pass_check_deploy(tmp_path: Path) -> None:
    https = {"SECRET_KEY": LONG_KEY, "ALLOWED_HOSTS": "skymark.example.org"}

    deploy = ("check", "--deploy", "--tag", "security", "--fail-level", "WARNING")
    plain = _manage(*deploy, data_dir=tmp_path, **https)
    secure = _manage(*deploy, data_dir=tmp_path, SKYMARK_HTTPS="1", **https)

    # Plain HTTP (the embedded default) is what check --deploy warns about ...
    for code in ("W004", "W008", "W012", "W016"):
        assert f"security.{code}" in plain.stderr + plain.stdout
    # ... and SKYMARK_HTTPS turns every transport setting on.
    assert secure.returncode == 0, secure.stderr + secure.stdout
    assert "no issues" in secure.stdout
