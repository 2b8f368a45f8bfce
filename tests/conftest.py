"""Shared fixtures: real test media, an isolated media folder per test, users by role, API clients,
eager Celery for tests that want jobs to run."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from config.cache import DegradingRedisCache
from tests.factories import (
    AdminFactory,
    AnnotatorFactory,
    ReviewerFactory,
    audio_only_m4a,
    copy_to,
    one_pixel_video,
    png_bytes,
    png_header_claiming,
    stored_files,
    tiny_video,
)

# Real drone videos and satellite images (see SOURCES.md there); CI may point elsewhere.
TESTDATA_ENV = "SKYMARK_TESTDATA"
# The shared folder sits beside the checkout (../shared/testdata), as in CI's fresh clones.
TESTDATA_DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "testdata"


@pytest.fixture(scope="session")
def testdata() -> Path:
    """The folder of real media. A missing folder fails the test (it never skips silently)."""
    path = Path(os.environ.get(TESTDATA_ENV) or TESTDATA_DEFAULT)
    for needed in (path, path / "videos", path / "satellite"):
        if not needed.is_dir():
            pytest.fail(
                f"test media folder missing: {needed} (set {TESTDATA_ENV} to the testdata folder "
                "with videos/ and satellite/ described in its SOURCES.md)",
                pytrace=False,
            )
    return path


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Each test stores media in its own folder, never in the repository's var/."""
    root = tmp_path_factory.mktemp("media")
    settings.MEDIA_ROOT = str(root)
    # Factories hash a password per user; the production hasher would make that most of the runtime.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return root


@pytest.fixture(autouse=True)
def cvaa_cache(settings, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Each test keeps CVAA window embeddings in its own folder (never var/, never the media folder)."""
    folder = tmp_path_factory.mktemp("cvaa-cache")
    settings.SKYMARK_CVAA_CACHE_DIR = str(folder)
    return folder


@pytest.fixture(autouse=True)
def cache_of_this_test(settings) -> None:  # type: ignore[no-untyped-def]
    """Each test gets cache keys of its own. Cached answers (image access per user, sessions) live
    in Redis or the data folder beyond one test, while database ids start again with each test
    database (and SQLite reuses them after a rollback), so a key could meet a stranger's answer."""
    settings.CACHES = {
        name: {**conf, "KEY_PREFIX": f"test-{uuid.uuid4().hex}", **_patient(conf)}
        for name, conf in settings.CACHES.items()
    }
    DegradingRedisCache._down_until = 0.0  # a pause begun by an earlier test ends with it


def _patient(conf: dict) -> dict:
    """A test process stalled for half a second by a busy machine is not a Redis that went down: the
    product's 0.5 s read timeout then sends a session to the database, and a query count compared
    across two requests moves by one (CI once saw a dashboard's 14 queries as 15; with the cache
    paused the extra one is the session's SELECT). The outage path is tested with a closed port
    (tests/config/test_cache.py), which refuses at once whatever the timeout."""
    if conf.get("BACKEND") != "config.cache.DegradingRedisCache":
        return {}
    return {"OPTIONS": {**conf.get("OPTIONS", {}), "socket_timeout": 10}}


@pytest.fixture
def media_files(media_root: Path) -> Callable[[], set[str]]:
    """Snapshot of the stored files (relative paths), to show that nothing was left behind."""
    return lambda: stored_files(media_root)


@pytest.fixture
def celery_eager() -> Iterator[None]:
    """Tasks run in-process when enqueued; pair with django_capture_on_commit_callbacks(execute=True)."""
    from config.celery import app

    old = (app.conf.task_always_eager, app.conf.task_eager_propagates)
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = old


@pytest.fixture
def bad_media(tmp_path: Path) -> dict[str, Path]:
    """Files that look like media by name but are not usable, each with a telling name."""
    out = tmp_path / "bad"
    out.mkdir()
    (out / "empty.mp4").write_bytes(b"")
    (out / "truncated.mp4").write_bytes(tiny_video().read_bytes()[:1000])
    (out / "notes.mp4").write_text("this is a text file, not a video\n")
    (out / "huge.png").write_bytes(png_header_claiming(60000, 60000))
    (out / "notes.png").write_text("not an image either\n")
    (out / "photo.jpg").write_bytes(png_bytes(32, 24, 5))  # a PNG under a JPEG name
    _broken_geotiff(out / "ortho.tif")
    return {
        "empty": out / "empty.mp4",
        "truncated": out / "truncated.mp4",
        "text": out / "notes.mp4",
        "audio_only": copy_to(audio_only_m4a(), out / "tone.mp4"),
        "huge_image": out / "huge.png",
        "text_image": out / "notes.png",
        "missing": out / "missing.mp4",
        "one_pixel": copy_to(one_pixel_video(), out / "dot.mp4"),
        "wrong_extension": out / "photo.jpg",
        "broken_georef": out / "ortho.tif",
    }


def _broken_geotiff(path: Path) -> None:
    """A GeoTIFF whose geotransform has a pixel height of 0 (a damaged export)."""
    import numpy as np
    import rasterio
    from affine import Affine

    profile = {"driver": "GTiff", "width": 8, "height": 6, "count": 1, "dtype": "uint8", "crs": "EPSG:32631"}
    with rasterio.open(path, "w", transform=Affine(0.5, 0, 593270, 0, 0, 5747657), **profile) as ds:
        ds.write(np.zeros((1, 6, 8), "uint8"))


# ---- users and clients ---------------------------------------------------------------------


@pytest.fixture
def annotator(db):  # type: ignore[no-untyped-def]
    return AnnotatorFactory(username="ann")


@pytest.fixture
def other_annotator(db):  # type: ignore[no-untyped-def]
    return AnnotatorFactory(username="ann2")


@pytest.fixture
def reviewer(db):  # type: ignore[no-untyped-def]
    return ReviewerFactory(username="rev1")


@pytest.fixture
def second_reviewer(db):  # type: ignore[no-untyped-def]
    return ReviewerFactory(username="rev2")


@pytest.fixture
def admin(db):  # type: ignore[no-untyped-def]
    return AdminFactory(username="ada")


@pytest.fixture
def api() -> Callable[..., APIClient]:
    """api(user) -> an APIClient authenticated as a fresh copy of `user` (no cached roles);
    api() -> an anonymous one."""

    def make(user=None) -> APIClient:  # type: ignore[no-untyped-def]
        client = APIClient()
        if user is not None:
            client.force_authenticate(user=get_user_model().objects.get(pk=user.pk))
        return client

    return make
