"""Database: DATABASE_URL (PostgreSQL in production and CI), else the embedded SQLite file."""

import environ

from config import env

# WAL lets the web server read while the embedded worker writes; IMMEDIATE takes the write lock
# at BEGIN so two writers queue (up to `timeout` s) instead of failing mid-transaction.
SQLITE_OPTIONS = {
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
}

if env.DATABASE_URL:
    DATABASES = {"default": environ.Env.db_url_config(env.DATABASE_URL)}
    if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        DATABASES["default"]["ENGINE"] = "config.sqlite"
        DATABASES["default"]["OPTIONS"] = dict(SQLITE_OPTIONS)
        DATABASES["default"]["CONN_MAX_AGE"] = 600
    else:
        if DATABASES["default"]["ENGINE"].endswith("postgresql"):
            # Django's PostgreSQL backend, its health check made without a round trip while the
            # connection is quiet (config/postgresql/base.py).
            DATABASES["default"]["ENGINE"] = "config.postgresql"
        DATABASES["default"]["CONN_MAX_AGE"] = 60
        DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
        if env.DB_PREPARED_STATEMENTS:
            # Parameters bound by the server (psycopg 3) and a statement prepared the second time a
            # connection runs it: the annotation path repeats the same few statements, and PostgreSQL
            # then parses and plans each once per connection, not per request. At the benchmark's
            # size it served 1.15x the units/s at 8 clients, with 0.90x the web server's CPU a unit
            # (bench/README.md, "Statements prepared on PostgreSQL"). Django leaves both off by
            # default for connection poolers.
            options = DATABASES["default"].setdefault("OPTIONS", {})
            options.setdefault("server_side_binding", True)
            options.setdefault("prepare_threshold", 2)
else:
    env.DATA_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            # Django's SQLite backend with writers queued on a lock file (config/sqlite/base.py).
            "ENGINE": "config.sqlite",
            "NAME": env.DATA_DIR / "skymark.sqlite3",
            "OPTIONS": dict(SQLITE_OPTIONS),
            # Keep connections between requests: opening one re-runs the PRAGMAs on every save.
            "CONN_MAX_AGE": 600,
            # A file, not :memory:, so a real worker process can share the test database.
            "TEST": {"NAME": str(env.DATA_DIR / "test-skymark.sqlite3")},
        }
    }
