"""With Redis down (REDIS_URL pointing at a closed port), the web side keeps working: sessions and
marks are saved, and jobs that cannot be queued stay pending with a note until the queue is back."""

from __future__ import annotations

import socket

import pytest
from django.core.cache import cache

from annotator.intake.services import SceneSpec, scene_import
from annotator.models import Mark, MediaJob
from annotator.processing.tasks import jobs_recover
from tests.factories import SceneFactory, tiny_video
from tests.workers import broker_of_this_process

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_down(settings) -> str:  # type: ignore[no-untyped-def]
    """REDIS_URL as the web side would see it, at a port where nothing listens."""
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", 6390)) == 0:
            pytest.skip("something listens on 127.0.0.1:6390; these tests need it closed")
    url = "redis://127.0.0.1:6390/0"
    settings.CACHES = {
        "default": {
            "BACKEND": "config.cache.DegradingRedisCache",
            "LOCATION": url,
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    return url


def test_the_cache_answers_a_miss_instead_of_an_error(redis_down: str) -> None:
    cache.set("k", 1)
    assert cache.get("k", "missing") == "missing"
    assert cache.get_many(["k"]) == {} and cache.add("k", 1) is False and cache.delete("k") is False


def test_an_annotator_logs_in_and_saves_marks_while_redis_is_down(redis_down: str, annotator, client) -> None:
    scene = SceneFactory(annotators=[annotator])
    image = scene.satellite_images.get()
    client.force_login(annotator)  # the session is written to the database; the cache is skipped

    created = client.post(
        f"/api/scenes/{scene.id}/marks/",
        {"satellite_image": image.id, "kind": "point", "geometry": {"type": "Point", "coordinates": [20, 30]},
         "label": "car", "time_start": 0.5},
        content_type="application/json",
    )  # fmt: skip
    assert created.status_code == 201, created.content
    mark_id = created.json()["id"]
    updated = client.patch(f"/api/marks/{mark_id}/", {"version": 1, "label": "bus"}, content_type="application/json")
    assert updated.status_code == 200, updated.content
    assert Mark.objects.get(id=mark_id).label == "bus"


def test_jobs_that_cannot_be_queued_stay_pending_with_a_note_and_go_out_when_the_queue_is_back(
    redis_down: str, admin, api, django_capture_on_commit_callbacks
) -> None:
    # given the broker is down: importing a scene still works
    spec = SceneSpec(name="offline", video=tiny_video(), satellite_from_keyframe_s=0.0)
    with broker_of_this_process(redis_down), django_capture_on_commit_callbacks(execute=True):
        scene = scene_import(spec=spec, created_by=admin)

    # then its first job is pending, with a note the scene page shows
    jobs = {j["kind"]: j for j in api(admin).get(f"/api/scenes/{scene.id}/jobs/").json()["results"]}
    assert jobs["probe"]["state"] == "pending"
    assert jobs["probe"]["detail"].startswith("not queued yet: the task queue is unreachable")
    assert jobs["probe"]["detail"].endswith("; sent when it is back")
    # ... and a retry while it is still down says the same, rather than failing
    with broker_of_this_process(redis_down), django_capture_on_commit_callbacks(execute=True):
        assert api(admin).post(f"/api/jobs/{jobs['probe']['id']}/retry/").status_code == 200
    assert MediaJob.objects.get(id=jobs["probe"]["id"]).unsent_since is not None

    # when the queue is back (here: the filesystem broker), a worker's regular look sends them
    unsent = MediaJob.objects.filter(unsent_since__isnull=False).count()
    assert unsent >= 1
    assert jobs_recover() == unsent

    # then the note is gone and the job waits in the queue
    probe = MediaJob.objects.get(id=jobs["probe"]["id"])
    assert (probe.state, probe.detail, probe.unsent_since) == ("pending", "", None)


def test_a_release_that_cannot_be_queued_says_so_and_can_be_retried(
    redis_down: str, admin, annotator, api, client, django_capture_on_commit_callbacks
) -> None:
    from annotator.models import Item
    from review.models import Release
    from tests.factories import ItemFactory

    for answer in ("yes", "no"):
        ItemFactory(state=Item.State.APPROVED, author=annotator, answer=answer)

    # when an admin freezes a release while the broker is down
    with broker_of_this_process(redis_down), django_capture_on_commit_callbacks(execute=True):
        response = api(admin).post("/api/releases/", {"version": "1.0"}, format="json")

    # then the items are frozen, and the release says its build was not queued
    assert response.status_code == 202, response.content
    release = Release.objects.get(version="1.0")
    assert release.state == "building" and release.error.startswith("not queued: the task queue is unreachable")
    # ... and the releases page offers to retry it
    client.force_login(admin)
    assert 'data-testid="release-retry"' in client.get("/releases/").content.decode()
