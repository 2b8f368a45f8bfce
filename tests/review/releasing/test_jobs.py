"""review.releasing.jobs: a release build whose worker is killed mid-way is retried (and frozen
with a correct manifest) or abandoned (its scratch folder goes and the version is free again).
Real worker processes, SIGKILLed, on the filesystem broker and on Redis."""

from __future__ import annotations

import hashlib
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from annotator.models import Item
from review.models import Release, ReleaseItem
from review.releasing.jobs import releases_reclaim_lost, scratch_home
from review.releasing.services import release_create
from tests.factories import ItemFactory, SatelliteImageFactory, SceneFactory
from tests.workers import Workers, wait_for, workers_fixture  # noqa: F401 (the `workers` fixture)


@pytest.fixture
def approved(annotator) -> list[Item]:  # type: ignore[no-untyped-def]
    scene = SceneFactory(name="Saro", satellite_images=[SatelliteImageFactory(corners={"tl": [57.48, 12.01]})])
    # as many yes as no keys, so yes/no balancing keeps all six
    answers = ["yes", "no"] * 3
    return [ItemFactory(scene=scene, author=annotator, state=Item.State.APPROVED, answer=a) for a in answers]


def _kill_mid_build(workers: Workers, admin) -> Release:  # type: ignore[no-untyped-def]
    worker = workers.start_ready()
    release = release_create(version="1.0", user=admin)

    def mid_build() -> bool:
        row = Release.objects.get(id=release.id)
        if row.state != "building":
            pytest.fail(f"the build ended ({row.state}) before it could be killed")
        return row.progress > 0

    wait_for("the build to run with some progress", mid_build)
    workers.kill(worker)
    release.refresh_from_db()
    assert release.state == "building" and release.lease_until is not None
    assert scratch_home(release.id).exists()  # what the killed build left
    return release


def _lease_ran_out(release: Release) -> bool:
    return Release.objects.filter(id=release.id, lease_until__lt=timezone.now()).exists()


def _check_frozen(release: Release) -> None:
    release.refresh_from_db()
    assert release.state == "frozen", release.error
    root = Path(settings.MEDIA_ROOT) / release.root
    listed = {f["path"]: f for f in release.manifest["files"]}
    on_disk = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} - {"manifest.json"}
    assert set(listed) == on_disk
    for path, entry in listed.items():
        data = (root / path).read_bytes()
        assert (hashlib.sha256(data).hexdigest(), len(data)) == (entry["sha256"], entry["bytes"]), path
    assert release.manifest["items"] == 6
    assert not scratch_home(release.id).exists()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_killed_build_is_refused_while_leased_then_retried_and_frozen(workers: Workers, approved, admin, api) -> None:
    # given a build whose worker was killed mid-way
    release = _kill_mid_build(workers, admin)
    client = api(admin)
    # ... it cannot be retried while its lease may still be renewed
    assert client.post("/api/releases/1.0/retry/").status_code == 409

    # when its lease has run out and an admin retries it
    killed = time.monotonic()
    wait_for("the lease of the killed build to run out", lambda: _lease_ran_out(release))
    response = client.post("/api/releases/1.0/retry/")
    assert response.status_code == 202, response.content
    assert not scratch_home(release.id).exists()  # the killed build's folder went with the retry
    workers.start()

    # then it is built and frozen with a manifest that matches its files
    wait_for("the retried build to freeze", lambda: Release.objects.filter(id=release.id, state="frozen").exists())
    print(f"kill -> frozen again: {time.monotonic() - killed:.1f} s")
    _check_frozen(release)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_an_abandoned_build_leaves_nothing_and_its_version_builds_again(workers: Workers, approved, admin, api) -> None:
    # given a build whose worker was killed mid-way, its lease run out
    release = _kill_mid_build(workers, admin)
    wait_for("the lease of the killed build to run out", lambda: _lease_ran_out(release))

    # when an admin abandons it
    response = api(admin).post("/api/releases/1.0/abandon/")

    # then its scratch folder, its files and its rows are gone
    assert response.status_code == 204, response.content
    assert not scratch_home(release.id).exists()
    assert not (Path(settings.MEDIA_ROOT) / "releases" / "1.0").exists()
    assert not Release.objects.exists() and not ReleaseItem.objects.exists()
    # ... and the same version can be built again
    again = release_create(version="1.0", user=admin)
    workers.start()
    wait_for("the new build to freeze", lambda: Release.objects.filter(id=again.id, state="frozen").exists())
    _check_frozen(again)


# ---- without a worker process ----------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("lease", ["ran out", "none (a build stuck before leases existed)"])
def test_workers_send_a_build_whose_lease_ran_out_once(approved, admin, lease: str) -> None:
    release = release_create(version="1.0", user=admin, enqueue=False)
    lease_until = timezone.now() - timedelta(seconds=1) if lease == "ran out" else None
    Release.objects.filter(id=release.id).update(lease_until=lease_until, progress=14)

    taken, again = releases_reclaim_lost(), releases_reclaim_lost()

    assert [r.id for r in taken] == [release.id] and again == []
    release.refresh_from_db()
    assert (release.state, release.progress, release.lease_until) == ("building", 0, None)


@pytest.mark.django_db
@pytest.mark.parametrize("action", ["retry", "abandon"])
def test_a_frozen_release_cannot_be_retried_or_abandoned(approved, admin, api, action: str) -> None:
    from review.releasing.services import release_build

    release_build(version="1.0", user=admin)
    response = api(admin).post(f"/api/releases/1.0/{action}/")
    assert response.status_code == 409
    assert "frozen" in response.json()["detail"]


@pytest.mark.django_db
def test_the_releases_page_offers_retry_and_abandon_for_a_stuck_build(approved, admin, client) -> None:
    # given a build whose lease ran out at 14 %
    release = release_create(version="1.0", user=admin, enqueue=False)
    Release.objects.filter(id=release.id).update(lease_until=timezone.now() - timedelta(seconds=1), progress=14)
    client.force_login(admin)

    page = client.get("/releases/").content.decode()
    assert "Its worker stopped at 14 %." in page and 'data-testid="release-abandon"' in page

    # when the admin presses Abandon / then the version is free
    response = client.post("/releases/1.0/build/abandon/", follow=True)
    assert response.status_code == 200
    assert "Release 1.0 abandoned" in response.content.decode()
    assert not Release.objects.exists()
