"""Settings read from the environment: the embedded default finds its own key, production
settings pass `check --deploy`, the S3 variables docker-compose sets store in its bucket (each run
in a fresh process, as `manage.py` would be)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml
from django.conf import settings

from tests.s3server import ACCESS_KEY, SECRET_KEY, S3Server, s3_server_fixture  # noqa: F401

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


def test_the_s3_environment_docker_compose_sets_stores_in_its_bucket(tmp_path: Path, s3_server: S3Server) -> None:
    # given the S3 variables docker-compose gives the app (each one read by config/env.py) ...
    compose = yaml.safe_load((Path(settings.BASE_DIR) / "docker-compose.yml").read_text())
    given = {k for k in compose["x-app"]["environment"] if k.startswith("S3_")}
    needed = {"S3_BUCKET", "S3_ENDPOINT_URL", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY", "S3_PUBLIC_ENDPOINT_URL"}
    assert given == needed
    read = set(re.findall(r"^(S3_\w+): ", (Path(settings.BASE_DIR) / "config" / "env.py").read_text(), re.M))
    assert given <= read
    # ... and the bucket minio-init creates, on a server started here
    bucket = compose["x-app"]["environment"]["S3_BUCKET"]
    assert f"local/{bucket}" in compose["services"]["minio-init"]["command"][0]
    s3_server.client().create_bucket(Bucket=bucket)
    public = s3_server.endpoint.replace("127.0.0.1", "localhost")
    env = {
        "SECRET_KEY": LONG_KEY,
        "S3_BUCKET": bucket,
        "S3_ENDPOINT_URL": s3_server.endpoint,
        "S3_ACCESS_KEY_ID": ACCESS_KEY,
        "S3_SECRET_ACCESS_KEY": SECRET_KEY,
        "S3_PUBLIC_ENDPOINT_URL": public,
        "S3_URL_EXPIRE_S": "120",
    }
    store = (
        "from django.core.files.base import ContentFile; from django.core.files.storage import default_storage; "
        "name = default_storage.save('probe/hello.txt', ContentFile(b'hello')); print(default_storage.url(name))"
    )

    # when a manage.py process started with them stores a file
    done = _manage("shell", "-c", store, data_dir=tmp_path, **env)

    # then the file is in the bucket, and its URL is signed for the public endpoint
    assert done.returncode == 0, done.stderr
    url = done.stdout.strip().splitlines()[-1]
    assert url.startswith(f"{public}/{bucket}/probe/hello.txt?") and "X-Amz-Expires=120" in url
    client = s3_server.client()
    assert client.get_object(Bucket=bucket, Key="probe/hello.txt")["Body"].read() == b"hello"
    client.delete_object(Bucket=bucket, Key="probe/hello.txt")
    client.delete_bucket(Bucket=bucket)


def test_prepared_statements_can_be_turned_off_for_a_pooler(tmp_path: Path) -> None:
    show = "from django.conf import settings; o = settings.DATABASES['default']['OPTIONS']; print(sorted(o.items()))"
    url = "postgres://postgres@127.0.0.1:5432/test"
    on = _manage("shell", "-c", show, data_dir=tmp_path, SECRET_KEY=LONG_KEY, DATABASE_URL=url)
    off = _manage(
        "shell", "-c", show, data_dir=tmp_path, SECRET_KEY=LONG_KEY, DATABASE_URL=url,
        SKYMARK_DB_PREPARED_STATEMENTS="false",
    )  # fmt: skip
    assert on.returncode == 0 and off.returncode == 0, on.stderr + off.stderr
    assert "('prepare_threshold', 2), ('server_side_binding', True)" in on.stdout.splitlines()[-1]
    assert "server_side_binding" not in off.stdout.splitlines()[-1]


def test_a_database_server_gets_one_web_process_more_than_the_cores(tmp_path: Path) -> None:
    # A process waits idle on every round trip to a database server; SQLite runs inside the process.
    show = "import os; from config import env; print(env.WEB_CONCURRENCY, len(os.sched_getaffinity(0)))"
    url = "postgres://postgres@127.0.0.1:5432/test"
    environments = {
        "embedded": {"DATABASE_URL": ""},  # whatever the tests run on
        "sqlite url": {"DATABASE_URL": f"sqlite:///{tmp_path}/x.sqlite3"},
        "postgres": {"DATABASE_URL": url},
        "set": {"DATABASE_URL": url, "WEB_CONCURRENCY": "5"},
    }
    runs = {
        name: _manage("shell", "-c", show, data_dir=tmp_path, SECRET_KEY=LONG_KEY, **extra)
        for name, extra in environments.items()
    }
    got = {}
    for name, run in runs.items():
        assert run.returncode == 0, run.stderr
        processes, cores = map(int, run.stdout.split()[-2:])
        got[name] = processes - cores if name != "set" else processes
    assert got == {"embedded": 0, "sqlite url": 0, "postgres": 1, "set": 5}
