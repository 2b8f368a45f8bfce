"""Training on the platform's data: `train_cvaa` uses every source there is and names the missing ones,
the loss falls, the best checkpoint is kept and made active; the same run as a Celery job on the `gpu`
queue, followed by the scene previews."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
import torch
from django.core.management import CommandError, call_command

from annotator.models import CvaaCheckpoint, CvaaPreview, CvaaTraining, Item, MediaJob, TelemetrySample, TelemetryTrack
from annotator.processing.cvaa.footprints import frame_footprint_record
from media_tools.cvaa import load_checkpoint
from media_tools.geo import GeoReference
from tests.annotator.processing.cvaa.conftest import CROPS
from tests.factories import ItemFactory, MarkFactory

pytestmark = pytest.mark.django_db


def _train(*args: str) -> str:
    out = io.StringIO()
    call_command("train_cvaa", "--preset=tiny", "--threads=2", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_train_cvaa_uses_every_source_the_platform_has_and_the_loss_falls(
    rotterdam_scene, annotator, tmp_path: Path, capsys
) -> None:
    # given the Rotterdam scene with: keyframe 0's footprint known from the image, a telemetry track
    # over keyframes 1-3, and an approved item whose region is as large as a drone view
    image = rotterdam_scene.satellite_images.get()
    x1, y1, x2, y2 = CROPS[0]
    box = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], float)
    frame_footprint_record(scene=rotterdam_scene, image=image, time_s=0.0, quad=box, source="homography")
    lon, lat = GeoReference.from_dict(image.georef).pixel_to_lonlat(200.0, 200.0)
    track = TelemetryTrack.objects.create(scene=rotterdam_scene, source="csv", sample_count=2)
    for t in (1.0, 3.0):
        TelemetrySample.objects.create(track=track, time_s=t, lat=lat, lon=lon, height_m=60.0, heading_deg=0.0)
    region = {"type": "Polygon", "coordinates": [[[150, 40], [270, 40], [270, 140], [150, 140]]]}
    mark = MarkFactory(scene=rotterdam_scene, author=annotator, geometry=region, time_start=1.0, time_end=None)
    ItemFactory(scene=rotterdam_scene, author=annotator, marks=[mark], state=Item.State.APPROVED)

    # when train_cvaa runs 40 steps of the tiny model
    out = _train("--steps=40", "--seed=3", f"--out={tmp_path / 'cvaa.pt'}")

    # then the log names each source with its pairs: the homography, three telemetry keyframes, the mark
    log = capsys.readouterr().out
    assert "self-supervised: 1 satellite image(s)" in log
    assert "homography: 1 pair(s)" in log and "telemetry: 3 pair(s)" in log and "approved marks: 1 pair(s)" in log
    # and validation is self-supervised only: 5 real pairs are too few to hold some out
    assert "validation: 128 self-supervised pairs and 0 held-out real pair(s)" in log
    # and the loss fell, and the best checkpoint by validation recall is kept, active, and written to --out
    checkpoint = CvaaCheckpoint.objects.get()
    metrics = checkpoint.metrics
    assert metrics["loss_last"] < metrics["loss_first"] - 0.1, metrics
    assert metrics["pairs"]["homography"] == 1 and metrics["pairs"]["telemetry"] == 3
    assert (checkpoint.origin, checkpoint.active, metrics["steps"], metrics["device"]) == ("trained", True, 40, "cpu")
    written = load_checkpoint(tmp_path / "cvaa.pt")
    assert written.weights_sha256 == checkpoint.sha256 and written.meta["best_step"] == metrics["best_step"]
    assert f"checkpoint {checkpoint.id} ({checkpoint.sha256[:12]})" in out and "queued 1 scene preview job" in out
    run = CvaaTraining.objects.get()
    assert (run.state, run.progress, run.checkpoint_id) == ("succeeded", 100, checkpoint.id)
    # and the scene's previews wait for the new model
    assert MediaJob.objects.get(scene=rotterdam_scene, kind="cvaa").state == "pending"


def test_missing_sources_are_named_and_no_image_fails_the_run(rotterdam_scene, annotator, capsys) -> None:
    # given only an approved region of 50 x 30 px: smaller than any view the model trains on (36 px)
    mark = MarkFactory(scene=rotterdam_scene, author=annotator)
    ItemFactory(scene=rotterdam_scene, author=annotator, marks=[mark], state=Item.State.APPROVED)
    _train("--steps=2", "--no-activate")
    log = capsys.readouterr().out
    assert "homography: none (no keyframe whose image was made from it" in log
    assert "telemetry: none (no scene with a telemetry track" in log
    assert "approved marks: none (no region of an approved item large enough (1 smaller than" in log
    assert not CvaaCheckpoint.objects.get().active  # --no-activate

    rotterdam_scene.satellite_images.clear()
    with pytest.raises(CommandError, match="no satellite image to train on: import a scene first"):
        _train("--steps=2")
    assert CvaaTraining.objects.order_by("id").last().state == "failed"  # type: ignore[union-attr]


def test_cvaa_tasks_go_to_the_gpu_queue() -> None:
    from config.celery import app

    route = app.amqp.router.route
    assert route({}, "annotator.processing.tasks.cvaa_job_task")["queue"].name == "gpu"
    assert route({}, "annotator.processing.tasks.cvaa_train_task")["queue"].name == "gpu"
    assert route({}, "annotator.processing.tasks.media_job_task")["queue"].name == "media"


def test_a_training_job_trains_on_a_worker_and_the_previews_follow(
    api, admin, rotterdam_scene, celery_eager, django_capture_on_commit_callbacks, monkeypatch
) -> None:
    from annotator.processing import tasks

    sent: list[str] = []
    for task in (tasks.cvaa_train_task, tasks.cvaa_job_task):
        real = task.apply_async
        monkeypatch.setattr(
            task, "apply_async", lambda *a, _r=real, _n=task.name, **kw: sent.append(_n) or _r(*a, **kw)
        )
    # when an admin starts a training run (workers here run tasks inline)
    with django_capture_on_commit_callbacks(execute=True):
        response = api(admin).post(
            "/api/cvaa/trainings/", {"steps": 3, "preset": "tiny", "device": "cpu"}, format="json"
        )
    # then the run went to the training task, trained, and its checkpoint is active
    assert response.status_code == 201, response.content
    run = CvaaTraining.objects.get(id=response.json()["id"])
    assert run.state == "succeeded", run.error
    assert run.checkpoint is not None and run.checkpoint.active
    # and the scene's preview job followed through the gpu-routed task, with one preview per keyframe
    assert sent == ["annotator.processing.tasks.cvaa_train_task", "annotator.processing.tasks.cvaa_job_task"]
    assert MediaJob.objects.get(scene=rotterdam_scene, kind="cvaa").state == "succeeded"
    assert CvaaPreview.objects.filter(checkpoint=run.checkpoint).count() == len(CROPS)
    listed = api(admin).get("/api/cvaa/trainings/").json()["results"]
    assert listed[0]["state"] == "succeeded" and listed[0]["detail"].startswith("best recall@1")


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_a_device_this_machine_lacks_is_a_command_error_before_any_run_is_recorded(rotterdam_scene) -> None:
    for device in ("cuda", "cuda:3", "mps"):
        with pytest.raises(
            CommandError, match=rf"^--device: device '{device}' is not available: .*available here: cpu"
        ):
            _train("--steps=2", f"--device={device}")
    assert not CvaaTraining.objects.exists() and not CvaaCheckpoint.objects.exists()


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_a_queued_run_for_a_device_its_worker_lacks_fails_with_the_reason(
    api, admin, rotterdam_scene, celery_eager, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = api(admin).post(
            "/api/cvaa/trainings/", {"steps": 2, "preset": "tiny", "device": "cuda"}, format="json"
        )
    run = CvaaTraining.objects.get(id=response.json()["id"])
    assert run.state == "failed" and run.checkpoint is None
    assert run.error.startswith("device 'cuda' is not available: ") and run.error.endswith("available here: cpu")
