"""The `cvaa` job: previews for every keyframe with the active model, the window cache reused across
runs (counted, not timed) and rebuilt for other weights, skipped without a model, failed with the
file's name for a damaged checkpoint."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from annotator.models import CvaaCheckpoint, CvaaPreview, MediaJob
from annotator.processing.cvaa.checkpoints import checkpoint_activate, checkpoint_create
from annotator.processing.cvaa.previews import previews_build
from tests.annotator.processing.cvaa.conftest import CROPS

pytestmark = pytest.mark.django_db


def test_without_a_model_the_job_is_skipped_and_says_what_to_do(rotterdam_scene, run_previews) -> None:
    job = run_previews(rotterdam_scene)
    assert job.state == MediaJob.State.SKIPPED and job.error == ""
    assert "train one (manage.py train_cvaa" in job.detail and "upload one" in job.detail
    assert not CvaaPreview.objects.exists()


def test_the_job_places_every_keyframe_and_reuses_the_window_cache(
    rotterdam_scene, active_checkpoint: CvaaCheckpoint, run_previews, cvaa_cache: Path
) -> None:
    # when the job runs with the active tiny model
    job = run_previews(rotterdam_scene)

    # then it succeeds with one preview per keyframe: top-k boxes inside the image, best first
    assert job.state == MediaJob.State.SUCCEEDED, job.error
    previews = list(CvaaPreview.objects.order_by("keyframe__index"))
    image = rotterdam_scene.satellite_images.get()
    assert [p.keyframe.index for p in previews] == list(range(len(CROPS)))
    for p in previews:
        assert (p.checkpoint_id, p.satellite_image_id, p.source) == (active_checkpoint.id, image.id, "cvaa")
        assert 1 <= len(p.boxes) <= 5 and len(p.quads) == len(p.scores) == len(p.boxes)
        assert p.score == p.scores[0] == max(p.scores)
        x1, y1, x2, y2 = p.boxes[0]
        assert 0 <= x1 < x2 <= 300 and 0 <= y1 < y2 <= 300
        assert p.heatmap["rows"] <= 16 and len(p.heatmap["values"]) == p.heatmap["rows"]
    assert "4 keyframes placed on 1 image(s)" in job.detail and "windows embedded" in job.detail
    # and the image's window embeddings went to the cache, named by image and weights
    [cached] = list(cvaa_cache.iterdir())
    assert active_checkpoint.sha256[:20] in cached.name

    # when it runs again, the window index comes from the cache: no window is embedded again
    again = previews_build(scene=rotterdam_scene, checkpoint=active_checkpoint)
    assert [s.loaded_from_cache for s in again.index_stats] == [True]
    assert [s.embedded_windows for s in again.index_stats] == [0]
    assert again.windows_embedded == 0 and again.frames_embedded == len(CROPS)
    assert run_previews(rotterdam_scene).detail.endswith("windows from cache")
    # and the previews were replaced, not added to
    assert CvaaPreview.objects.count() == len(CROPS)


def test_other_weights_do_not_reuse_the_cache(rotterdam_scene, active_checkpoint, other_bytes, run_previews) -> None:
    # given previews with the first model
    run_previews(rotterdam_scene)
    # when another model becomes active
    other, _ = checkpoint_create(data=other_bytes, name="other.pt", origin="uploaded", created_by=None)
    jobs = checkpoint_activate(checkpoint_id=other.id)
    # then the scene's preview job is pending again, and its run embeds every window afresh
    assert [(j.scene_id, j.kind) for j in jobs] == [(rotterdam_scene.id, "cvaa")]
    assert MediaJob.objects.get(id=jobs[0].id).state == MediaJob.State.PENDING
    run = previews_build(scene=rotterdam_scene, checkpoint=other)
    assert [s.loaded_from_cache for s in run.index_stats] == [False] and run.windows_embedded > 0
    assert set(CvaaPreview.objects.values_list("checkpoint_id", flat=True)) == {other.id}


def test_a_damaged_checkpoint_file_fails_the_job_with_its_name_and_keeps_the_old_previews(
    rotterdam_scene, active_checkpoint, other_bytes, run_previews
) -> None:
    # given previews, then another checkpoint whose stored file was damaged after upload
    run_previews(rotterdam_scene)
    before = list(CvaaPreview.objects.values_list("id", flat=True))
    damaged, _ = checkpoint_create(data=other_bytes, name="other.pt", origin="uploaded", created_by=None)
    Path(damaged.file.path).write_bytes(other_bytes[: len(other_bytes) // 2])
    checkpoint_activate(checkpoint_id=damaged.id)

    # when the job runs
    job = run_previews(rotterdam_scene)

    # then it fails with one sentence naming the file and the reason, and nothing is half-written
    assert job.state == MediaJob.State.FAILED
    assert job.error.startswith("other.pt: not a CVAA checkpoint (cannot be read")
    assert list(CvaaPreview.objects.values_list("id", flat=True)) == before


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_a_worker_set_to_a_device_it_lacks_fails_the_job_saying_so(
    rotterdam_scene, active_checkpoint, run_previews, settings
) -> None:
    # given a worker configured for CUDA on a machine (or torch build) without it
    settings.SKYMARK_CVAA_DEVICE = "cuda"

    # when the job runs
    job = run_previews(rotterdam_scene)

    # then it fails, once, with the device and what the worker has, and no preview is written
    assert job.state == MediaJob.State.FAILED
    assert job.error.startswith("CVAA_DEVICE of this worker: device 'cuda' is not available: ")
    assert job.error.endswith("available here: cpu")
    assert not CvaaPreview.objects.exists()
