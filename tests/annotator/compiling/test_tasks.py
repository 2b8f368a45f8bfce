"""The model views' Celery tasks: a job whose item is gone ends at once, quietly, without a retry;
views have a queue of their own, one message per transaction, and real workers on the filesystem
broker render each view once, put media jobs first and take up the views of a killed worker."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.storage import default_storage

from annotator.compiling.batch import items_compile_all
from annotator.compiling.modelview import stored_names
from annotator.compiling.services import item_compile
from annotator.compiling.tasks import model_view_task, views_send
from annotator.intake.services import SceneSpec, scene_import
from annotator.models import Item, MediaJob, ModelView
from tests.annotator.compiling.modelview.views import item_on, pending_views, textured_image
from tests.annotator.compiling.test_compile_each_task import CASES, Marks
from tests.factories import tiny_video
from tests.workers import Workers, wait_for, workers_fixture  # noqa: F401 (the `workers` fixture)

pytestmark = pytest.mark.django_db
T = Item.Task
TERMINAL = ("succeeded", "failed", "skipped")


def test_a_view_job_for_a_deleted_item_ends_at_once_without_retry(
    annotator: Any, celery_eager: None, caplog: Any
) -> None:
    # given an item whose model view job was queued, then the item deleted before a worker took it
    marks, _ = CASES[T.TARGET_VISIBILITY][0](Marks(annotator))
    item = item_compile(user=annotator, task=T.TARGET_VISIBILITY, mark_ids=[marks[0].id])
    view_id = ModelView.objects.get(item=item).id
    Item.objects.filter(id=item.id).delete()
    assert not ModelView.objects.filter(id=view_id).exists()
    # when the job runs (twice: a redelivered message)
    with caplog.at_level(logging.INFO, logger="annotator.compiling.modelview"):
        results = [model_view_task.apply(args=[view_id]) for _ in range(2)]
    # then it succeeds at once, never retried, logging at info and nothing worse
    assert [(r.state, r.result) for r in results] == [("SUCCESS", None)] * 2
    records = [r for r in caplog.records if r.name.startswith("annotator.compiling.modelview")]
    assert [r.levelno for r in records] == [logging.INFO, logging.INFO]
    assert "no longer exists" in records[0].getMessage()


# ---- the views queue -------------------------------------------------------------------------


def test_model_views_go_to_the_views_queue_media_jobs_to_theirs() -> None:
    from config.celery import app

    route = app.amqp.router.route
    assert route({}, "annotator.compiling.tasks.model_views_task")["queue"].name == "views"
    assert route({}, "annotator.compiling.tasks.model_view_task")["queue"].name == "views"
    assert route({}, "annotator.processing.tasks.media_job_task")["queue"].name == "media"
    assert route({}, "annotator.processing.tasks.cvaa_job_task")["queue"].name == "gpu"


def test_a_compile_all_batch_sends_one_message_for_all_its_views(
    annotator: Any, django_capture_on_commit_callbacks: Any
) -> None:
    # given a scene with several regions / when the annotator compiles all at once
    marks = Marks(annotator)
    for x in (10, 50, 90, 130):
        marks("polygon", {"type": "Polygon", "coordinates": [[[x, 10], [x + 30, 10], [x + 30, 40], [x, 10]]]},
              "pier", facts={"visible": True}, time_start=0.0)  # fmt: skip
    with django_capture_on_commit_callbacks() as sent:
        made = items_compile_all(user=annotator, scene_id=marks.scene.id, seed=0).items
    # then every item has a pending view, and one message tells the workers
    assert len(made) >= 4
    assert set(ModelView.objects.filter(item__in=made).values_list("state", flat=True)) == {"pending"}
    assert len(sent) == 1


# ---- with real worker processes (filesystem broker: the embedded default) --------------------

VIEWS_ONLY, MEDIA_ONLY = "views", "media,gpu"


def _views_of(views: list[ModelView]) -> dict[str, int]:
    states = ModelView.objects.filter(id__in=[v.id for v in views]).values_list("state", flat=True)
    return {s: list(states).count(s) for s in ("pending", "running", "succeeded", "failed")}


def _busy(counts: dict[str, int]) -> bool:
    return counts["succeeded"] >= 5 and counts["running"] > 0


def _all_rendered(views: list[ModelView]) -> bool:
    counts = _views_of(views)
    if counts["failed"]:
        pytest.fail(f"{counts['failed']} view(s) failed: {ModelView.objects.filter(state='failed').first().error}")  # type: ignore[union-attr]
    return counts["succeeded"] == len(views)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("workers", ["filesystem"], indirect=True)
def test_a_media_job_does_not_wait_behind_a_backlog_of_views(workers: Workers, annotator: Any, admin: Any) -> None:
    # given a media worker and a views worker, and a backlog of 200 views being rendered
    workers.start_ready(MEDIA_ONLY)
    workers.start_ready(VIEWS_ONLY)
    views = pending_views(item_on(textured_image(1600, 1200), annotator), 200)
    views_send()
    wait_for("the views worker to start on the backlog", lambda: _views_of(views)["succeeded"] > 0)
    # when a scene is imported (its media jobs queued after the views)
    spec = SceneSpec(name="behind views", video=tiny_video(), satellite_from_keyframe_s=0.0)
    scene = scene_import(spec=spec, created_by=admin)
    probe = scene.jobs.get(kind="probe")
    wait_for("the probe job to end", lambda: MediaJob.objects.filter(id=probe.id, state__in=TERMINAL).exists())
    # then it ended while the backlog was still being drained
    left = _views_of(views)
    probe.refresh_from_db()
    assert probe.state == "succeeded", probe.error
    assert left["pending"] + left["running"] > 0, left
    # ... and the backlog drains afterwards, each view rendered once
    wait_for("every view to be rendered", lambda: _all_rendered(views))
    last = max(ModelView.objects.filter(id__in=[v.id for v in views]).values_list("finished_at", flat=True))
    assert probe.finished_at < last
    assert set(ModelView.objects.filter(id__in=[v.id for v in views]).values_list("attempts", flat=True)) == {1}


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("workers", ["filesystem"], indirect=True)
def test_two_view_workers_render_each_pending_view_exactly_once(workers: Workers, annotator: Any) -> None:
    # given two views workers and 200 pending views, on an image big enough that the backlog takes
    # seconds: the second worker hears of it through the filesystem broker, which polls once a
    # second, and 200 views of a 640x480 image were all rendered by the first in 0.78 s
    workers.start_ready(VIEWS_ONLY)
    workers.start_ready(VIEWS_ONLY)
    views = pending_views(item_on(textured_image(1600, 1200), annotator), 200)
    # when they are told (one message: the first worker sends another for the second to join)
    views_send()
    wait_for("every view to be rendered", lambda: _all_rendered(views))
    # then each view was rendered once, by one claim or the other, with its own stored picture
    rows = list(ModelView.objects.filter(id__in=[v.id for v in views]))
    assert {r.attempts for r in rows} == {1}
    assert len({r.claim for r in rows}) >= 2  # both workers took part
    assert all(default_storage.exists(r.image.name) for r in rows)
    assert len({r.image.name for r in rows}) == len(rows)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("workers", ["filesystem"], indirect=True)
def test_the_views_of_a_killed_worker_are_rendered_again_and_its_stored_files_do_not_stay(
    workers: Workers, annotator: Any, media_files: Callable[[], set[str]]
) -> None:
    # given a views worker half way through a backlog
    first = workers.start_ready(VIEWS_ONLY)
    views = pending_views(item_on(textured_image(1600, 1200), annotator), 120)
    every = list(ModelView.objects.all())  # the first item's own view too
    views_send()
    # (a claim's views are written together once all are stored, so it is waited for until the
    # next claim has stored files of its own: killed between two claims, it would hold nothing)
    # when it is killed mid-claim (frozen while that is checked again: tests/workers.py)
    workers.kill_when(
        first,
        "some views rendered, others held with files stored",
        lambda: _busy(_views_of(views)) and _files_of_running(media_files()),
    )
    held = list(ModelView.objects.filter(id__in=[v.id for v in views], state="running").values_list("id", flat=True))
    assert held, "the worker was killed between claims; nothing was left running"
    assert _orphans(media_files()), "the killed worker had stored nothing for the views it held"
    # ... and another worker starts
    workers.start(VIEWS_ONLY)
    # then what the killed worker held is taken up again once its lease ran out, and every view ends
    # rendered: those held twice (attempt 2), the others once
    wait_for("every view to be rendered", lambda: _all_rendered(every))
    attempts = dict(ModelView.objects.filter(id__in=[v.id for v in views]).values_list("id", "attempts"))
    assert {attempts[i] for i in held} == {2}
    assert {a for i, a in attempts.items() if i not in held} == {1}
    # and storage holds exactly the files the rows name: what the killed run stored is gone
    stored = media_files()
    assert not _orphans(stored)
    assert _named() <= stored


def _named() -> set[str]:
    return {name for view in ModelView.objects.all() for name in stored_names(view)}


def _orphans(stored: set[str]) -> set[str]:
    return {name for name in stored if name.startswith("modelviews/")} - _named()


def _files_of_running(stored: set[str]) -> bool:
    """Whether a running view has files stored under its attempt's folder (not yet on its row)."""
    running = ModelView.objects.filter(state="running").values_list("item_id", "attempts")
    folders = {f"modelviews/{item_id}/{attempts}/" for item_id, attempts in running}
    return any(name.startswith(tuple(folders)) for name in stored) if folders else False
