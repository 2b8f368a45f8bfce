"""A second, truly separate Skymark instance for restore tests: its own database (a new SQLite file,
or a PostgreSQL database created for the test and dropped after) and its own media folder, driven
through `manage.py` in a subprocess, plus the summary both instances are compared by."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.apps import apps
from django.core.files.storage import default_storage
from django.db import connection

from config.backup.media import stored_names
from tests.workers import database_url

REPO = Path(__file__).resolve().parents[3]
MARK = "@@summary@@"


class Instance:
    def __init__(self, *, url: str, folder: Path) -> None:
        self.url, self.folder, self.media = url, folder, folder / "media"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("S3_", "REDIS_URL", "DATABASE_URL"))}
        env |= {
            "DATABASE_URL": self.url,
            "MEDIA_ROOT": str(self.media),
            "SKYMARK_DATA_DIR": str(self.folder),
            "SECRET_KEY": "restore-test",
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
        return env

    def manage(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=REPO,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )

    def python(self, code: str) -> Any:
        """Run `code` in this instance (a `manage.py shell`); returns the JSON value it printed
        with `emit(value)`."""
        prelude = f"import json\ndef emit(value): print({MARK!r} + json.dumps(value, default=str))\n"
        done = self.manage("shell", "-c", prelude + code)
        assert done.returncode == 0, done.stderr[-3000:]
        [line] = [line for line in done.stdout.splitlines() if line.startswith(MARK)]
        return json.loads(line[len(MARK) :])

    def files(self) -> set[str]:
        return {p.relative_to(self.media).as_posix() for p in self.media.rglob("*") if p.is_file()}

    def summary(self) -> dict[str, Any]:
        """instance_summary() of this instance."""
        return self.python("from tests.config.backup.instance import instance_summary\nemit(instance_summary())")  # type: ignore[no-any-return]

    def tables(self) -> dict[str, int]:
        """Rows per table of this instance's database ({} when it has no tables)."""
        return self.python("from config.backup.database import live_facts\nemit(live_facts().tables)")  # type: ignore[no-any-return]


@contextmanager
def separate_instance(folder: Path) -> Iterator[Instance]:
    """An empty instance on the backend the tests run on; a PostgreSQL database is dropped after."""
    folder.mkdir(parents=True, exist_ok=True)
    if connection.vendor != "postgresql":
        yield Instance(url=f"sqlite:///{folder / 'restored.sqlite3'}", folder=folder)
        return
    import psycopg

    conf = connection.settings_dict
    name = f"{conf['NAME']}_restore_{uuid.uuid4().hex[:8]}"
    params = {"host": conf.get("HOST") or "127.0.0.1", "port": conf.get("PORT") or 5432, "user": conf.get("USER")}
    if conf.get("PASSWORD"):
        params["password"] = conf["PASSWORD"]
    with psycopg.connect(dbname="postgres", autocommit=True, **params) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield Instance(url=database_url().rsplit("/", 1)[0] + f"/{name}", folder=folder)
    finally:
        with psycopg.connect(dbname="postgres", autocommit=True, **params) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def instance_summary() -> dict[str, Any]:
    """Every row of every table (all columns, by primary key) and every stored file's sha256: two
    instances with equal summaries hold the same data."""
    rows = {
        model._meta.db_table: [list(r.values()) for r in model._default_manager.order_by("pk").values()]
        for model in apps.get_models(include_auto_created=True)
    }
    files = {}
    for name in stored_names():
        with default_storage.open(name, "rb") as fh:
            files[name] = hashlib.sha256(fh.read()).hexdigest()
    # through JSON, as the other instance's summary comes
    return json.loads(json.dumps({"rows": rows, "files": files}, default=str))  # type: ignore[no-any-return]
