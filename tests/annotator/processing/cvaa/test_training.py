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

from annotator.models import (
    CvaaCheckpoint,
    CvaaPreview,
    CvaaTraining,
    Item,
    Keyframe,
    MediaJob,
    TelemetrySample,
    TelemetryTrack,
)
from annotator.processing.cvaa.footprints import frame_footprint_record
from media_tools.cvaa import load_checkpoint
from media_tools.geo import GeoReference
from tests.annotator.processing.cvaa.conftest import CROPS
from tests.factories import (
    ItemFactory,
    KeyframeFactory,
    KeyframePlacementFactory,
    MarkFactory,
    SatelliteImageFactory,
    SceneFactory,
)

pytestmark = pytest.mark.django_db


def _train(*args: str) -> str:
    out = io.StringIO()
    call_command("train_cvaa", "--preset=tiny", "--threads=2", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def _second_scene(rotterdam, annotator):  # type: ignore[no-untyped-def]
    """Another scene on an image of its own (Rotterdam upside down): keyframes 0-3 placed by matching at
    CROPS."""
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage
    from PIL import Image

    from tests.annotator.processing.cvaa.conftest import jpeg

    pixels = np.ascontiguousarray(rotterdam[::-1])
    png = io.BytesIO()
    Image.fromarray(pixels).save(png, format="PNG")
    image = SatelliteImageFactory(original_name="rotterdam-b.png", width=300, height=300, content=png.getvalue())
    scene = SceneFactory(satellite_images=[image], annotators=[annotator])
    for i, box in enumerate(CROPS):
        x1, y1, x2, y2 = box
        name = default_storage.save(f"keyframes/v{scene.video_id}/{i:06d}.jpg", ContentFile(jpeg(pixels[y1:y2, x1:x2])))
        kf = KeyframeFactory(video=scene.video, index=i, time_s=float(i), image=name)
        KeyframePlacementFactory(keyframe=kf, satellite_image=image, box=box, confidence=0.9)
    return scene


def test_train_cvaa_pulls_real_pairs_from_placements_holds_out_a_scene_and_calibrates_on_it(
    rotterdam_scene, rotterdam, annotator, tmp_path: Path, capsys
) -> None:
    # given scene A (Rotterdam): keyframe 0 placed by control points (and its image made from it),
    # keyframe 1 by matching, keyframe 2 by chaining with low confidence, keyframe 3 by the learned
    # retriever; a telemetry track over keyframes 1-3; an approved region as large as a drone view
    image = rotterdam_scene.satellite_images.get()
    kfs = {kf.index: kf for kf in Keyframe.objects.filter(video=rotterdam_scene.video)}
    placed = {0: ("control_points", 1.0), 1: ("matching", 0.9), 2: ("chaining", 0.5), 3: ("learned", 0.99)}
    for index, (source, confidence) in placed.items():
        KeyframePlacementFactory(
            keyframe=kfs[index], satellite_image=image, source=source, box=CROPS[index], confidence=confidence
        )
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
    # and scene B on an image of its own, its four keyframes placed by matching
    scene_b = _second_scene(rotterdam, annotator)

    # when train_cvaa runs 40 steps of the tiny model
    out = _train("--steps=40", "--seed=3", f"--out={tmp_path / 'cvaa.pt'}")

    # then the pairs come from the trusted placements first (control points, matching), then the anchor
    # and telemetry footprints for the keyframes no trusted placement covers; never the learned one
    log = capsys.readouterr().out
    assert (
        "placements (confidence >= 0.8): control_points 1, matching 5; not used: 1 low confidence, 1 source learned"
        in log
    )
    scene_a = {"placement:control_points": 1, "placement:matching": 1, "footprint:telemetry": 2, "approved marks": 1}
    expected = {rotterdam_scene.id: scene_a, scene_b.id: {"placement:matching": 4}}
    checkpoint = CvaaCheckpoint.objects.get()
    metrics = checkpoint.metrics
    # and one whole scene is held out: its scene and image are not on the training side
    split = metrics["split"]
    assert len(split["held_out_scenes"]) == 1 and set(split["train_scenes"] + split["held_out_scenes"]) == set(expected)
    assert not set(split["train_images"]) & set(split["held_out_images"])
    (held,) = split["held_out_scenes"]
    (trained,) = split["train_scenes"]
    assert metrics["pairs"]["train"] == expected[trained] and metrics["pairs"]["held_out"] == expected[held]
    assert "split by scene: 1 training scene(s) on 1 image(s), 1 held out on 1 image(s)" in log
    assert "self-supervised: 1 satellite image(s)" in log  # the held-out scene's map is not trained on
    assert f"{sum(expected[held].values())} real pair(s) of held-out scenes" in log
    # and the checkpoint is calibrated on the held-out scene's real pairs alone (test_calibrate.py), the
    # calibration written into the file itself too
    assert metrics["calibration_pairs"] == {"real": sum(expected[held].values()), "self-supervised": 0}
    calibration = metrics["calibration"]
    assert calibration["pairs"] == sum(expected[held].values()) and calibration["b"] >= 0
    assert sum(r["pairs"] for r in calibration["reliability"]) == calibration["pairs"]
    written = load_checkpoint(tmp_path / "cvaa.pt")
    assert written.weights_sha256 == checkpoint.sha256 and written.meta["calibration"] == calibration
    assert written.meta["split"] == split
    # and the loss fell, and the best checkpoint by validation recall is kept and active
    assert metrics["loss_last"] < metrics["loss_first"] - 0.1, metrics
    assert (checkpoint.origin, checkpoint.active, metrics["steps"], metrics["device"]) == ("trained", True, 40, "cpu")
    assert metrics["steps_per_s"] > 0
    assert f"checkpoint {checkpoint.id} ({checkpoint.sha256[:12]})" in out and "queued 2 scene preview job" in out
    run = CvaaTraining.objects.get()
    assert (run.state, run.progress, run.checkpoint_id) == ("succeeded", 100, checkpoint.id)
    assert MediaJob.objects.get(scene=rotterdam_scene, kind="cvaa").state == "pending"


def test_missing_sources_are_named_and_no_image_fails_the_run(rotterdam_scene, annotator, capsys) -> None:
    # given only an approved region of 50 x 30 px: smaller than any view the model trains on (36 px)
    mark = MarkFactory(scene=rotterdam_scene, author=annotator)
    ItemFactory(scene=rotterdam_scene, author=annotator, marks=[mark], state=Item.State.APPROVED)
    _train("--steps=2", "--no-activate")
    log = capsys.readouterr().out
    assert "placements (confidence >= 0.8): none" in log
    assert "footprint:homography: none" in log and "footprint:telemetry: none" in log
    assert "approved marks: none (1 region(s) smaller than the smallest training view)" in log
    # and with one scene there is nothing to hold out: no calibration, said so
    assert "nothing to hold out" in log and "calibration: none (no held-out scene" in log
    checkpoint = CvaaCheckpoint.objects.get()
    assert checkpoint.metrics["calibration"] is None and not checkpoint.active  # --no-activate

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
