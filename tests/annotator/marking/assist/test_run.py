"""annotator.marking.assist.run: a job runs once, reports progress, notices a cancel, and fails with a
reason naming the file when the video cannot be read."""

from __future__ import annotations

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from annotator.marking.assist import run
from annotator.marking.assist.services import tracking_start
from annotator.models import Mark, TrackingJob

pytestmark = pytest.mark.django_db


def _job(scene, annotator) -> TrackingJob:  # type: ignore[no-untyped-def]
    return tracking_start(
        scene=scene, author=annotator, satellite_image=scene.satellite_images.get(), label="car", time_s=0.0,
        box=[40, 40, 24, 24], duration_s=5.0,
    )  # fmt: skip


def test_a_job_runs_once(annotator, square_scene) -> None:
    job = _job(square_scene, annotator)
    run.tracking_run(job_id=job.id)
    run.tracking_run(job_id=job.id)  # a second delivery of the message
    job.refresh_from_db()
    assert job.state == "succeeded" and job.progress == 100 and job.started_at and job.finished_at
    assert Mark.objects.filter(scene=square_scene).count() == 1
    assert job.detail == "20 of 20 frames on the map; 0 lost in the video"
    # each vertex carries the tracker's own doubt: its back-check error (none on the clicked frame)
    vs = job.result["vertices"]
    assert vs[0]["fb_px"] is None and all(0 <= v["fb_px"] < 2 and v["why"] == "" for v in vs[1:])


def test_progress_is_written_and_a_cancel_is_noticed_between_frames(annotator, square_scene, monkeypatch) -> None:
    monkeypatch.setattr(run, "CANCEL_POLL_S", 0.0)
    job = _job(square_scene, annotator)
    progress, cancelled = run._watch(job.id, (50, 50))  # the second of two passes
    progress(40)
    assert TrackingJob.objects.get(id=job.id).progress == 70
    assert not cancelled()
    TrackingJob.objects.filter(id=job.id).update(cancel_requested=True)
    assert cancelled()


def test_an_unreadable_video_fails_the_job_with_its_name(annotator, square_scene) -> None:
    video = square_scene.video
    name = default_storage.save("videos/broken.avi", ContentFile(b"not a video at all"))
    type(video).objects.filter(id=video.id).update(file=name)
    job = _job(square_scene, annotator)
    run.tracking_run(job_id=job.id)
    job.refresh_from_db()
    assert job.state == "failed"
    assert "broken.avi" in job.error and "cannot be decoded" in job.error
    assert not Mark.objects.filter(scene=square_scene).exists()


def test_a_job_whose_worker_vanished_is_taken_up_again_or_cancelled_at_once(annotator, square_scene) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from annotator.marking.assist.services import tracking_cancel

    # given a job left `running` by a worker that died (its heartbeat is old)
    old = timezone.now() - timedelta(seconds=run.STALE_S + 5)
    job = _job(square_scene, annotator)
    TrackingJob.objects.filter(id=job.id).update(state="running", heartbeat_at=old)
    # a new delivery of its message runs it
    run.tracking_run(job_id=job.id)
    assert TrackingJob.objects.get(id=job.id).state == "succeeded"

    # another such job is cancelled at once: no worker is there to notice
    other = _job(square_scene, annotator)
    TrackingJob.objects.filter(id=other.id).update(state="running", heartbeat_at=old)
    assert tracking_cancel(job=other).state == "cancelled"

    # while a live one only gets the request, which its worker reads between frames
    live = _job(square_scene, annotator)
    TrackingJob.objects.filter(id=live.id).update(state="running", heartbeat_at=timezone.now())
    run.tracking_run(job_id=live.id)  # a duplicate delivery while it runs does nothing
    asked = tracking_cancel(job=live)
    assert asked.state == "running" and asked.cancel_requested
