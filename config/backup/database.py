"""The database half of a backup, with the database's own tools: SQLite's online backup API (a
consistent copy while the server writes, WAL mode), PostgreSQL's pg_dump / pg_restore (custom format).

What the manifest says about the database (row counts, migrations, the stored files its rows name)
is read from the snapshot itself, never from the live database, so it cannot disagree with it.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.apps import apps
from django.db import connection, connections, transaction
from django.db.models import FileField

from config.backup.archive import BackupError

# Rows that `migrate` itself writes (bookkeeping, permissions, the role groups, the built-in
# phrasings, the rejection taxonomy, the default project and its review policy) or that a visitor
# leaves without an account (sessions): an instance holding only these is empty, so a restore may
# go into a freshly migrated database. A new data migration that seeds a table adds it here (a
# test migrates and checks).
SEEDED_TABLES = frozenset(
    {
        "django_migrations",
        "django_content_type",
        "auth_permission",
        "auth_group",
        "auth_group_permissions",
        "annotator_phrasing",
        "annotator_project",
        "django_session",
        "skymark_session",
        "review_rejectionreason",
        "review_reviewpolicy",
    }
)
# Storage names kept in plain text columns rather than file fields: (app, model, field).
PATH_COLUMNS = (("review", "Release", "items_file"), ("review", "Release", "manifest_file"))


@dataclass
class Facts:
    """What a snapshot holds: rows per table, applied migrations, the stored files its rows name."""

    tables: dict[str, int]
    migrations: list[list[str]]
    references: set[str] = field(default_factory=set)


def vendor() -> str:
    return "postgresql" if connection.vendor == "postgresql" else "sqlite"


def _q(identifier: str) -> str:
    """An SQL identifier quoted for both backends (names come from the catalog, never from input)."""
    return '"' + identifier.replace('"', '""') + '"'


def _table_names(cursor: Any, backend: str) -> list[str]:
    if backend == "postgresql":
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1")
    else:
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY 1")
    return [row[0] for row in cursor.fetchall()]


def _file_columns() -> list[tuple[str, str]]:
    columns = [
        (model._meta.db_table, f.column)
        for model in apps.get_models()
        for f in model._meta.concrete_fields
        if isinstance(f, FileField) and f.column
    ]
    for app, model_name, name in PATH_COLUMNS:
        model = apps.get_model(app, model_name)
        columns.append((model._meta.db_table, str(model._meta.get_field(name).column)))
    return columns


def facts_read(cursor: Any, backend: str) -> Facts:
    """Counts, migrations and referenced file names, through a DB-API cursor on one snapshot."""
    tables = _table_names(cursor, backend)
    counts = {}
    for table in tables:
        cursor.execute(f"SELECT COUNT(*) FROM {_q(table)}")  # noqa: S608
        counts[table] = int(cursor.fetchone()[0])
    migrations: list[list[str]] = []
    if "django_migrations" in counts:
        cursor.execute("SELECT app, name FROM django_migrations ORDER BY app, name")
        migrations = [[app, name] for app, name in cursor.fetchall()]
    references: set[str] = set()
    for table, column in _file_columns():
        if table in counts:
            cursor.execute(f"SELECT {_q(column)} FROM {_q(table)} WHERE {_q(column)} <> ''")  # noqa: S608
            references.update(row[0] for row in cursor.fetchall())
    return Facts(tables=counts, migrations=migrations, references=references)


def data_tables() -> list[str]:
    """Tables of the live database holding rows that `migrate` did not write (see SEEDED_TABLES)."""
    with connection.cursor() as cursor:
        tables = _table_names(cursor, vendor())
        full = []
        for table in tables:
            if table in SEEDED_TABLES:
                continue
            cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {_q(table)})")  # noqa: S608
            if cursor.fetchone()[0]:
                full.append(table)
    return full


def live_facts() -> Facts:
    with connection.cursor() as cursor:
        return facts_read(cursor, vendor())


# ---- snapshot -------------------------------------------------------------------------------


def snapshot(*, folder: Path) -> tuple[Path, Facts, dict[str, Any]]:
    """A consistent copy of the live database in `folder`, the facts read from that copy, and what
    made it (backend, server and tool versions)."""
    if vendor() == "postgresql":
        return _pg_snapshot(folder)
    return _sqlite_snapshot(folder)


def _sqlite_snapshot(folder: Path) -> tuple[Path, Facts, dict[str, Any]]:
    target = folder / "skymark.sqlite3"
    # A connection of its own: it sees what is committed, not a transaction the caller holds open.
    source = sqlite3.connect(str(connection.settings_dict["NAME"]), timeout=60)
    copy = sqlite3.connect(target)
    try:
        source.backup(copy)  # one step: the copy is the database as of one moment, WAL readers unblocked
        facts = facts_read(copy.cursor(), "sqlite")
    finally:
        copy.close()
        source.close()
    return target, facts, {"backend": "sqlite", "server_version": sqlite3.sqlite_version}


def _pg_snapshot(folder: Path) -> tuple[Path, Facts, dict[str, Any]]:
    target = folder / "skymark.pgdump"
    # A connection of its own holds one repeatable-read transaction whose snapshot pg_dump shares
    # (--snapshot), so the facts below and the dump see exactly the same rows.
    db = connections.create_connection("default")
    try:
        db.ensure_connection()
        server = _pg_major(db.pg_version)  # type: ignore[attr-defined]
        tool = pg_tool("pg_dump", at_least=server)
        db.set_autocommit(False)
        with db.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            cursor.execute("SELECT pg_export_snapshot()")
            snapshot_id = cursor.fetchone()[0]
            _pg_run([tool.path, "--format=custom", f"--snapshot={snapshot_id}", f"--file={target}"], db)
            facts = facts_read(cursor, "postgresql")
        db.rollback()
    finally:
        db.close()
    info = {"backend": "postgresql", "server_version": str(db.pg_version), "pg_dump_major": tool.major}  # type: ignore[attr-defined]
    return target, facts, info


# ---- PostgreSQL client tools ----------------------------------------------------------------


@dataclass
class PgTool:
    path: str
    major: int


def _pg_major(version_num: int) -> int:
    return version_num // 10000


def pg_tool(name: str, *, at_least: int) -> PgTool:
    """pg_dump or pg_restore, refused when missing or older than `at_least` (the server's major
    version): an older pg_dump refuses a newer server, and pg_restore a newer dump."""
    path = shutil.which(name)
    if path is None:
        raise BackupError(
            f"{name} not found: install the PostgreSQL client tools (scripts/system-deps.sh installs postgresql-client)"
        )
    out = subprocess.run([path, "--version"], capture_output=True, text=True, check=False).stdout
    found = re.search(r"(\d+)(?:\.\d+)?", out)
    major = int(found.group(1)) if found else 0
    if major < at_least:
        raise BackupError(
            f"{name} {major} is older than PostgreSQL {at_least}, which it would have to read: install "
            f"postgresql-client-{at_least} (or newer) and put its {name} first on PATH"
        )
    return PgTool(path=path, major=major)


def _pg_run(args: list[str], db: Any) -> None:
    """Run a client tool against `db`'s database; the password goes through the environment."""
    conf = db.settings_dict
    env = {**os.environ, "PGDATABASE": conf["NAME"]}
    for key, var in (("HOST", "PGHOST"), ("PORT", "PGPORT"), ("USER", "PGUSER"), ("PASSWORD", "PGPASSWORD")):
        if conf.get(key):
            env[var] = str(conf[key])
    if sslmode := conf.get("OPTIONS", {}).get("sslmode"):
        env["PGSSLMODE"] = sslmode
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tool = Path(args[0]).name
        what = "the archive's database could not be loaded" if tool == "pg_restore" else f"{tool} failed"
        raise BackupError(f"{what}: {done.stderr.strip()[-2000:]}")


# ---- load and clear --------------------------------------------------------------------------


def database_clear() -> None:
    """Drop every table (their triggers, sequences and the trigger functions with them): the live
    database becomes as empty as a new one. Side effect: closes Django's connection (SQLite)."""
    if vendor() == "postgresql":
        _pg_clear()
    else:
        connection.close()
        empty = sqlite3.connect(":memory:")
        target = sqlite3.connect(str(connection.settings_dict["NAME"]), timeout=60)
        try:
            empty.backup(target)  # replaces every page at once: atomic, like a load
        finally:
            target.close()
            empty.close()


def _pg_clear() -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        for table in _table_names(cursor, "postgresql"):
            cursor.execute(f"DROP TABLE IF EXISTS {_q(table)} CASCADE")
        cursor.execute(
            "SELECT c.relkind, c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind IN ('S', 'v', 'm')"
        )
        kinds = {"S": "SEQUENCE", "v": "VIEW", "m": "MATERIALIZED VIEW"}
        for kind, name in cursor.fetchall():
            cursor.execute(f"DROP {kinds[kind]} IF EXISTS {name} CASCADE")
        cursor.execute(
            "SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname = current_schema() AND NOT EXISTS "
            "(SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')"
        )
        for (name,) in cursor.fetchall():
            cursor.execute(f"DROP FUNCTION IF EXISTS {name} CASCADE")


def database_load_check(*, manifest: dict[str, Any]) -> None:
    """Refuse now, before anything is written, what database_load would refuse later: on PostgreSQL
    a missing pg_restore, or one older than the server or than the pg_dump that made the archive."""
    if vendor() == "postgresql":
        connection.ensure_connection()
        server = _pg_major(connection.pg_version)  # type: ignore[attr-defined]
        pg_tool("pg_restore", at_least=max(server, int(manifest["database"].get("pg_dump_major", 0))))


def database_load(*, dump: Path, manifest: dict[str, Any]) -> None:
    """Replace the live database with the archive's, all at once: SQLite's backup API writes every
    page in one step; pg_restore runs in one transaction after the (empty) tables are dropped.
    Raises BackupError when the archive's database cannot be loaded."""
    if vendor() == "postgresql":
        server = _pg_major(connection.pg_version)  # type: ignore[attr-defined]
        tool = pg_tool("pg_restore", at_least=max(server, int(manifest["database"].get("pg_dump_major", 0))))
        _pg_clear()
        args = [tool.path, "--single-transaction", "--exit-on-error", "--no-owner", "--no-privileges"]
        _pg_run([*args, f"--dbname={connection.settings_dict['NAME']}", str(dump)], connection)
        return
    connection.close()
    Path(connection.settings_dict["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    source = sqlite3.connect(dump)
    target = sqlite3.connect(str(connection.settings_dict["NAME"]), timeout=60)
    try:
        source.execute("PRAGMA quick_check").fetchall()  # a file that is not a database fails here
        source.backup(target)
    except sqlite3.Error as exc:
        raise BackupError(f"the archive's database could not be loaded: {exc}") from exc
    finally:
        target.close()
        source.close()


def database_analyze() -> None:
    """Give PostgreSQL's planner statistics for the rows just loaded. pg_restore writes none, and
    until autovacuum gets round to the tables (never, where it is off) the planner guesses: at the
    benchmark's size it then read a scene's 50 marks in 500 ms instead of 14, walking every open
    item once per mark to decide whether an edit copies it (bench/README.md). SQLite's plans here
    are chosen for a database without statistics (annotator/compiling/lifecycle.py), so it gets
    none."""
    if vendor() == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
