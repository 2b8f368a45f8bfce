"""Releases on S3 storage (a real S3 server started for the tests): built in a local scratch folder
and uploaded through the storage API, every manifest entry in the bucket byte for byte, the zip and
single files downloaded, and a build that fails mid-upload leaving nothing in the bucket."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from typing import Any

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.models import Item
from annotator.s3storage import PrivateS3Storage
from review.models import Release
from review.releasing import jobs
from review.releasing.services import release_abandon, release_build, release_create
from tests.factories import ItemFactory, SatelliteImageFactory, SceneFactory
from tests.s3server import S3Bucket, fetch, s3_fixture, s3_server_fixture  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def approved(s3: S3Bucket, annotator: Any) -> list[Item]:
    scene = SceneFactory(name="Saro", satellite_images=[SatelliteImageFactory(corners={"tl": [57.48, 12.01]})])
    return [ItemFactory(scene=scene, author=annotator, state=Item.State.APPROVED, answer=a) for a in ("yes", "no")]


def _token_client(user: Any) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def test_a_release_is_uploaded_whole_and_downloads_from_the_bucket(
    approved: list[Item], admin: Any, annotator: Any, s3: S3Bucket
) -> None:
    # when an admin builds release 1.0 on S3 storage
    release = release_build(version="1.0", user=admin)

    # then it is frozen, and the bucket holds exactly its manifest's files (and the manifest),
    # each with the listed sha256 and size; no scratch file reached the bucket or stayed behind
    assert release.state == "frozen", release.error
    listed = {f["path"]: f for f in release.manifest["files"]}
    assert s3.keys("releases/") == {f"releases/1.0/{p}" for p in [*listed, "manifest.json"]}
    for path, entry in listed.items():
        data = s3.read(f"releases/1.0/{path}")
        assert (hashlib.sha256(data).hexdigest(), len(data)) == (entry["sha256"], entry["bytes"]), path
    assert json.loads(s3.read("releases/1.0/manifest.json")) == release.manifest
    assert not jobs.scratch_home(release.id).exists()
    video = approved[0].scene.video
    # the scene's video ships once, under its content's name
    [shipped] = [path for path, entry in listed.items() if entry["sha256"] == video.sha256]
    assert shipped == f"media/{video.sha256[:2]}/{video.sha256}.mp4"
    assert s3.read(f"releases/1.0/{shipped}") == s3.read(video.file.name)

    # and the zip streams every file from the bucket
    response = _token_client(admin).get("/releases/1.0.zip")
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert set(archive.namelist()) == {f"skymark-1.0/{p}" for p in [*listed, "manifest.json"]}
    for path in listed:
        assert archive.read(f"skymark-1.0/{path}") == s3.read(f"releases/1.0/{path}"), path

    # and one file is a signed download under the release's name; an annotator gets no URL
    single = _token_client(admin).get("/releases/1.0/items.jsonl")
    assert single.status_code == 302
    got = fetch(single["Location"])
    assert got.content == s3.read("releases/1.0/items.jsonl")
    assert got.headers["Content-Disposition"] == 'attachment; filename="1.0-items.jsonl"'
    refused = _token_client(annotator).get("/releases/1.0/items.jsonl")
    assert refused.status_code == 403 and "Location" not in refused


def test_the_video_is_copied_inside_the_bucket_not_uploaded_from_the_build(
    approved: list[Item], admin: Any, s3: S3Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a build that records every object it uploads
    uploaded: list[str] = []
    save = PrivateS3Storage._save

    def spy(self: PrivateS3Storage, name: str, content: Any) -> str:
        uploaded.append(name)
        return save(self, name, content)

    monkeypatch.setattr(PrivateS3Storage, "_save", spy)

    # when release 1.0 is built
    release = release_build(version="1.0", user=admin)

    # then the video is in the release under its content's name, byte for byte, but the build never
    # uploaded it (the server copied it: CopyObject); every other file it did upload, once
    video = approved[0].scene.video
    shipped = f"releases/1.0/media/{video.sha256[:2]}/{video.sha256}.mp4"
    assert release.state == "frozen", release.error
    assert s3.read(shipped) == s3.read(video.file.name)
    assert shipped not in uploaded
    listed = {f"releases/1.0/{f['path']}" for f in release.manifest["files"]}
    assert sorted(uploaded) == sorted(listed - {shipped} | {"releases/1.0/manifest.json"})


def test_a_build_that_fails_mid_upload_leaves_nothing_in_the_bucket(
    approved: list[Item], admin: Any, s3: S3Bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a build whose upload breaks after three files
    release = release_create(version="1.0", user=admin, enqueue=False)
    uploaded: list[str] = []
    save = PrivateS3Storage._save

    def flaky(self: PrivateS3Storage, name: str, content: Any) -> str:
        if name.startswith("releases/") and len(uploaded) == 3:
            raise OSError("connection reset by the storage")
        uploaded.append(name)
        return save(self, name, content)

    monkeypatch.setattr(PrivateS3Storage, "_save", flaky)

    # when it runs / then the release failed, saying why, and none of its objects stayed
    with pytest.raises(OSError, match="connection reset"):
        jobs.release_run(release_id=release.id)
    release.refresh_from_db()
    assert (release.state, release.error) == ("failed", "OSError: connection reset by the storage")
    assert len(uploaded) == 3 and s3.keys("releases/") == set()
    assert not jobs.scratch_home(release.id).exists()

    # and once abandoned, the version builds whole
    monkeypatch.undo()
    release_abandon(release_id=release.id)
    assert not Release.objects.filter(version="1.0").exists()
    rebuilt = release_build(version="1.0", user=admin)
    assert rebuilt.state == "frozen" and len(s3.keys("releases/1.0/")) == len(rebuilt.manifest["files"]) + 1
