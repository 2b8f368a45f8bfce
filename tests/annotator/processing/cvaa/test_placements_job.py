"""The `placements` job: it waits for the jobs it reads from, runs again when any of them ends, places
every keyframe with progress and a summary, runs once for a finished job, and fails naming bad media."""

from __future__ import annotations

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from annotator.models import KeyframePlacement, MediaJob
from annotator.processing import graph
from tests.factories import KeyframePlacementFactory

pytestmark = pytest.mark.django_db

K = MediaJob.Kind


@pytest.fixture
def jobs(rotterdam_scene):  # type: ignore[no-untyped-def]
    """The scene's jobs as after import and processing: everything done but the placements."""
    made = {k: MediaJob.objects.get_or_create(scene=rotterdam_scene, kind=k)[0] for k in graph.STEPS if k in (
        K.PROBE, K.KEYFRAMES, K.FILMSTRIP, K.PROXY, K.TELEMETRY, K.CVAA, K.PLACEMENTS)}  # fmt: skip
    for kind, job in made.items():
        if kind != K.PLACEMENTS:
            MediaJob.objects.filter(id=job.id).update(state=MediaJob.State.SUCCEEDED)
    return made


def _state(job: MediaJob) -> MediaJob:
    job.refresh_from_db()
    return job


def test_it_follows_each_of_its_inputs_and_runs_on_the_cpu_queue() -> None:
    assert all(K.PLACEMENTS in graph.NEXT[k] for k in (K.KEYFRAMES, K.TELEMETRY, K.CVAA))
    assert graph.IMAGE_NEXT[K.GEOREFERENCE] == [K.PLACEMENTS]
    assert K.PLACEMENTS not in graph.GPU_KINDS and K.PLACEMENTS not in graph.FIRST
    # run after everything it reads (process_scenes runs jobs in this order)
    kinds = [K.PROBE, K.KEYFRAMES, K.TELEMETRY, K.CVAA, K.GEOREFERENCE, K.PLACEMENTS]
    assert graph._depth(K.PLACEMENTS) > max(graph._depth(k) for k in kinds[:-1])


def test_it_waits_pending_while_an_input_is_to_run_and_goes_when_it_ends(jobs, rotterdam_scene) -> None:
    # given the telemetry job still to run
    MediaJob.objects.filter(id=jobs[K.TELEMETRY].id).update(state=MediaJob.State.PENDING)

    # when the placements job is run, it waits: pending (never a finished state), saying for what
    assert graph.job_run(job_id=jobs[K.PLACEMENTS].id) == []
    waiting = _state(jobs[K.PLACEMENTS])
    assert waiting.state == "pending" and waiting.detail.startswith("waiting for telemetry")
    assert not KeyframePlacement.objects.exists()

    # when an input ends in any state, even skipped (the previews without a model), the placements job
    # is made runnable again and is among the jobs to send
    MediaJob.objects.filter(id=jobs[K.TELEMETRY].id).update(state=MediaJob.State.SUCCEEDED)
    MediaJob.objects.filter(id=jobs[K.PLACEMENTS].id).update(state=MediaJob.State.SUCCEEDED)
    MediaJob.objects.filter(id=jobs[K.CVAA].id).update(state=MediaJob.State.PENDING)
    followers = graph.job_run(job_id=jobs[K.CVAA].id)
    assert _state(jobs[K.CVAA]).state == "skipped"
    assert [f.id for f in followers] == [jobs[K.PLACEMENTS].id]
    assert _state(jobs[K.PLACEMENTS]).state == "pending"


def test_it_places_every_keyframe_once_with_progress_and_a_summary(jobs, rotterdam_scene) -> None:
    image = rotterdam_scene.satellite_images.get()

    # when run
    graph.job_run(job_id=jobs[K.PLACEMENTS].id)

    # then it succeeded saying how many keyframes each source placed on the image
    job = _state(jobs[K.PLACEMENTS])
    assert (job.state, job.progress) == ("succeeded", 100), job.error
    placed = KeyframePlacement.objects.filter(satellite_image=image).count()
    assert job.detail.startswith(f"image {image.id}: {placed}/4 placed (")
    assert placed >= 1
    first = sorted(KeyframePlacement.objects.values_list("id", "created_at"))

    # and run again, a finished job does nothing
    assert graph.job_run(job_id=job.id) == []
    assert sorted(KeyframePlacement.objects.values_list("id", "created_at")) == first


def test_bad_media_fails_with_the_file_named_and_the_old_rows_kept(jobs, rotterdam_scene) -> None:
    # given placements from an earlier run and a keyframe image that is no image
    image = rotterdam_scene.satellite_images.get()
    kfs = list(rotterdam_scene.video.keyframes.order_by("index"))
    old = sorted(KeyframePlacementFactory(keyframe=k, satellite_image=image).id for k in kfs)
    default_storage.delete(kfs[1].image.name)
    default_storage.save(kfs[1].image.name, ContentFile(b"\x00" * 64))

    # when run, the job fails naming the file, and the old placements stay
    graph.job_run(job_id=jobs[K.PLACEMENTS].id)
    job = _state(jobs[K.PLACEMENTS])
    assert job.state == "failed" and "000001.jpg" in job.error, (job.state, job.error)
    assert sorted(KeyframePlacement.objects.values_list("id", flat=True)) == old


def test_a_scene_without_keyframes_is_skipped_saying_why(jobs, rotterdam_scene) -> None:
    rotterdam_scene.video.keyframes.all().delete()
    graph.job_run(job_id=jobs[K.PLACEMENTS].id)
    job = _state(jobs[K.PLACEMENTS])
    assert job.state == "skipped" and job.detail.startswith("no keyframes to place yet")
