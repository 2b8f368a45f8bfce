"""A real S3-compatible server for the tests: moto's standalone server, started as a process of its
own on 127.0.0.1 (no MinIO server binary installs from PyPI, apt or npm), which django-storages and
boto3 speak to over HTTP exactly as production speaks to MinIO.

Objects are private there as on MinIO: an unsigned GET of an object is refused (403). moto checks
that a URL carries a signature but not its value; its IAM mode (INITIAL_NO_AUTH_ACTION_COUNT), which
would check it, answers every presigned GET with a server error in this version, so it is not used.

A test module takes the `s3` (and `s3_server`) fixtures with
`from tests.s3server import s3_fixture, s3_server_fixture`."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
import requests

from config.settings.storage import s3_storage

ACCESS_KEY, SECRET_KEY, REGION = "skymark-test", "skymark-test-secret", "us-east-1"
# Long enough for a server process to import everything on a loaded 2-core machine.
START_TIMEOUT_S = 120
URL_EXPIRE_S = 600


@dataclass
class S3Server:
    endpoint: str
    process: subprocess.Popen[bytes]

    def client(self) -> Any:
        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            region_name=REGION,
        )


@dataclass
class S3Bucket:
    """The bucket of one test, which Django's default storage points at."""

    server: S3Server
    name: str

    def keys(self, prefix: str = "") -> set[str]:
        """Every object under `prefix`, listed by the server itself (not through Django)."""
        pages = self.server.client().get_paginator("list_objects_v2").paginate(Bucket=self.name, Prefix=prefix)
        return {obj["Key"] for page in pages for obj in page.get("Contents", [])}

    def read(self, key: str) -> bytes:
        return self.server.client().get_object(Bucket=self.name, Key=key)["Body"].read()

    def object_url(self, key: str) -> str:
        """The plain (unsigned) URL of an object."""
        return f"{self.server.endpoint}/{self.name}/{key}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_ready(server: S3Server, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(f"the S3 server exited with {server.process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            server.client().list_buckets()
            return
        except Exception:
            time.sleep(0.2)
    pytest.fail(f"the S3 server did not answer within {START_TIMEOUT_S} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="session", name="s3_server")
def s3_server_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    """moto's S3 server on a free port for the whole run; a server that cannot start fails the test."""
    port = _free_port()
    log = tmp_path_factory.mktemp("s3-server") / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = S3Server(endpoint=f"http://127.0.0.1:{port}", process=process)
    try:
        _wait_ready(server, log)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def storage_on(server: S3Server, bucket: str, *, public_endpoint_url: str = "") -> dict[str, Any]:
    """The STORAGES entry production would build for this server and bucket."""
    return s3_storage(
        bucket=bucket,
        endpoint_url=server.endpoint,
        access_key=ACCESS_KEY,
        secret_key=SECRET_KEY,
        region=REGION,
        public_endpoint_url=public_endpoint_url,
        url_expire_s=URL_EXPIRE_S,
    )


@pytest.fixture(name="s3")
def s3_fixture(s3_server: S3Server, settings: Any) -> Iterator[S3Bucket]:
    """A fresh bucket on the server, made Django's default storage for this test."""
    bucket = S3Bucket(server=s3_server, name=f"skymark-{uuid.uuid4().hex[:16]}")
    client = s3_server.client()
    client.create_bucket(Bucket=bucket.name)
    settings.STORAGES = {**settings.STORAGES, "default": storage_on(s3_server, bucket.name)}
    yield bucket
    for key in bucket.keys(""):
        client.delete_object(Bucket=bucket.name, Key=key)
    client.delete_bucket(Bucket=bucket.name)


def fetch(url: str, **headers: str) -> requests.Response:
    """GET a URL over HTTP, as a browser following a redirect would."""
    assert url.startswith(("http://127.0.0.1:", "http://localhost:")), url
    return requests.get(url, headers=headers, timeout=30)
