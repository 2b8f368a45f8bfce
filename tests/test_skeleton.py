"""The walking skeleton, end to end through the HTTP API, with a real Celery worker process.

import (upload) -> probe + keyframes (worker) -> marks -> Target Visibility item -> two blind
reviews -> release -> score. Runs on whatever DATABASE_URL / REDIS_URL say (CI: PostgreSQL and
Redis) and, with both unset, on the embedded SQLite + filesystem broker.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.files.storage import default_storage
from django.core.management import call_command
from rest_framework.test import APIClient

from annotator.models import ProjectMembership, project_default_id
from config.celery import app as celery_app
from tests.workers import database_url

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

SARO = "videos/saro_roundabout_topdown_1080p_3fps.mp4"


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[subprocess.Popen]:
    """`celery -A config worker` in its own process, on the same database, broker and media."""
    celery_app.control.purge()  # messages left by earlier runs name rows that do not exist here
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "SECRET_KEY": "test",
        "CELERY_TASK_ALWAYS_EAGER": "0",
    }
    log = (tmp_path / "worker.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool=solo",
            "-Q",
            "media,gpu,views",
            "-l",
            "info",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    yield proc
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()
    print((tmp_path / "worker.log").read_text()[-4000:])


def _client_for(username: str, role: str) -> APIClient:
    user = get_user_model().objects.create_user(username=username, password=f"pw-{username}-12345")
    user.groups.add(Group.objects.get_or_create(name=role)[0])  # transactional tests flush migration data
    ProjectMembership.objects.get_or_create(project_id=project_default_id(), user=user, role=role)
    client = APIClient()
    token = client.post("/api/auth/token/", {"username": username, "password": f"pw-{username}-12345"})
    assert token.status_code == 200, token.content
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    return client


def _wait_for_model_view(client: APIClient, item_id: int, timeout: float = 90) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view = client.get(f"/api/items/{item_id}/").json()["model_view"]
        if view and view["state"] in ("succeeded", "failed"):
            return view
        time.sleep(0.3)
    raise AssertionError(f"the model view of item {item_id} was not rendered within {timeout} s")


def _wait_for_release(client: APIClient, version: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        release = client.get(f"/api/releases/{version}/").json()
        if release["state"] != "building":
            assert release["state"] == "frozen", release["error"]
            return release
        time.sleep(0.3)
    raise AssertionError(f"release {version} still building after {timeout} s")


def _wait_for_jobs(client: APIClient, scene_id: int, timeout: float = 90) -> list[dict]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        jobs = client.get(f"/api/scenes/{scene_id}/jobs/").json()["results"]
        if all(j["state"] in ("succeeded", "failed", "skipped") for j in jobs):
            return jobs
        time.sleep(0.3)
    pytest.fail(f"media jobs did not finish in {timeout}s: {jobs}")


def test_import_process_annotate_review_release_score(worker, testdata: Path, tmp_path: Path) -> None:
    admin = _client_for("ada", "admin")
    annotator = _client_for("ann", "annotator")
    reviewers = [_client_for("rev1", "reviewer"), _client_for("rev2", "reviewer")]

    # 1. import: an admin uploads the Saro clip; its first frame stands in for the map image
    with (testdata / SARO).open("rb") as video:
        response = admin.post(
            "/api/scenes/",
            {"name": "Saro", "video": video, "satellite_from_keyframe_s": 0, "annotators": ["ann"]},
            format="multipart",
        )
    assert response.status_code == 201, response.content
    scene = response.json()
    image = scene["satellite_images"][0]
    assert (image["width"], image["height"]) == (1920, 1080)
    assert "video's own frame" in image["provenance_note"]

    # 2. process: the worker probes, extracts keyframes at 1 fps, builds the filmstrip, checks
    # whether a proxy is needed, looks for telemetry, renders and tiles the image, traces where it has data
    jobs = _wait_for_jobs(annotator, scene["id"])
    # (the CVAA previews, routed to the `gpu` queue, run too and wait for a model; the placements run
    # once their inputs are done)
    assert [(j["kind"], j["state"], j["progress"]) for j in jobs] == [
        *((kind, "succeeded", 100) for kind in ("probe", "keyframes", "filmstrip", "proxy", "telemetry")),
        ("cvaa", "skipped", 0),
        ("placements", "succeeded", 100),
        *((kind, "succeeded", 100) for kind in ("render", "georeference", "tiles", "valid_area")),
    ], jobs
    video = annotator.get(f"/api/scenes/{scene['id']}/").json()["video"]
    assert (video["duration_s"], video["fps"], video["frame_count"]) == (10.0, 3.0, 30)
    keyframes = annotator.get(f"/api/scenes/{scene['id']}/keyframes/").json()["results"]
    assert [k["time_s"] for k in keyframes] == [float(t) for t in range(10)]
    assert annotator.get(keyframes[3]["url"]).status_code == 200

    # 3. annotate: a point and a visible region, each at the current video time
    point = annotator.post(
        f"/api/scenes/{scene['id']}/marks/",
        {
            "satellite_image": image["id"],
            "kind": "point",
            "label": "intersection",
            "geometry": {"type": "Point", "coordinates": [960, 540]},
            "time_start": 2.5,
        },
        format="json",
    )
    assert point.status_code == 201, point.content
    region = annotator.post(
        f"/api/scenes/{scene['id']}/marks/",
        {
            "satellite_image": image["id"],
            "kind": "polygon",
            "label": "roundabout",
            "geometry": {"type": "Polygon", "coordinates": [[[700, 300], [1200, 300], [1200, 800], [700, 800]]]},
            "time_start": 0.0,
            "time_end": 9.5,
            "facts": {"visible": True},
        },
        format="json",
    )
    assert region.status_code == 201, region.content

    # 4. compile a Target Visibility item and submit it
    item = annotator.post(
        "/api/items/", {"task": "target_visibility", "mark_ids": [region.json()["id"]]}, format="json"
    ).json()
    assert (item["answer"], item["options"], item["answer_format"]) == ("yes", ["yes", "no"], "yes_no")
    assert "roundabout" in item["question"]
    # the worker renders its model view (the marked satellite image) which reviewers answer from
    view = _wait_for_model_view(annotator, item["id"])
    assert view["state"] == "succeeded", view
    assert annotator.post(f"/api/items/{item['id']}/submit/").json()["state"] == "in_review"

    # 5. two blind reviews (both reviewers were assigned at submit) approve it: both answer as the key
    for reviewer, answer in zip(reviewers, ["yes", "yes"], strict=True):
        queued = reviewer.get("/api/review/queue/").json()["results"]
        assert [q["id"] for q in queued] == [item["id"]] and "answer" not in queued[0]
        review = reviewer.post(f"/api/review/items/{item['id']}/answer/", {"blind_answer": answer}).json()
        assert review["answer_key"] == "yes" and review["blind_correct"] is (answer == "yes")
        decided = reviewer.post(f"/api/reviews/{review['id']}/decision/", {"decision": "approve"}, format="json")
        assert decided.status_code == 200, decided.content
    assert annotator.get(f"/api/items/{item['id']}/").json()["state"] == "approved"

    # 6. an admin freezes the release; the worker builds it; the manifest's sha256 is the file's
    # (one yes/no item: balancing yes and no keys would hold it back)
    started = admin.post("/api/releases/", {"version": "1.0", "balance_yes_no": False}, format="json")
    assert started.status_code == 202, started.content
    assert started.json()["item_count"] == 1
    release = _wait_for_release(admin, "1.0")
    with default_storage.open(release["items_file"], "rb") as fh:
        data = fh.read()
    [entry] = [f for f in release["manifest"]["files"] if f["path"] == "items.jsonl"]
    assert entry["sha256"] == hashlib.sha256(data).hexdigest()
    record = json.loads(data.decode().splitlines()[0])

    # 7. score a predictions file against it
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(json.dumps({"id": record["id"], "answer": "Yes"}) + "\n")
    out = io.StringIO()
    call_command("score", "1.0", str(predictions), stdout=out)
    assert "target_visibility" in out.getvalue() and "100.0%" in out.getvalue()
