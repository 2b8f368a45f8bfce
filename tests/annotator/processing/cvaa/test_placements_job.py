"""The `placements` job: it waits for the jobs it reads from, runs again when any of them ends, places
every keyframe with progress and a summary, runs once for a finished job, and fails naming bad media."""

from __future__ import annotations

import threading

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connections

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
    # ... neither started nor finished (it did not run its work), and naming what it waits for
    assert (waiting.started_at, waiting.finished_at, waiting.progress) == (None, None, 0)
    assert waiting.waiting_kinds == ["telemetry"]
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


# ---- two workers at once (threads, each with its own database connection) --------------------


class _Gated:
    """The real placements step behind a gate: a run holds the job (running, its lease renewed) until
    the test opens the gate; counts runs and the most at once."""

    def __init__(self) -> None:
        self.real = graph.STEPS[K.PLACEMENTS]
        self.entered, self.gate = threading.Event(), threading.Event()
        self.lock = threading.Lock()
        self.runs = self.now = self.most = 0

    def __call__(self, job: MediaJob, progress) -> str | None:  # type: ignore[no-untyped-def]
        with self.lock:
            self.runs, self.now = self.runs + 1, self.now + 1
            self.most = max(self.most, self.now)
        self.entered.set()
        try:
            assert self.gate.wait(timeout=120), "the test never opened the gate"
            return self.real(job, progress)
        finally:
            with self.lock:
                self.now -= 1


class _Worker(threading.Thread):
    """graph.job_run in a thread of its own, as a second worker process would run it."""

    def __init__(self, job_id: int, start: threading.Barrier | None = None) -> None:
        super().__init__(daemon=True)
        self.job_id, self.barrier = job_id, start
        self.sent: list[int] | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            if self.barrier is not None:
                self.barrier.wait(timeout=60)
            self.sent = [j.id for j in graph.job_run(job_id=self.job_id)]
        except BaseException as exc:  # reported by the test
            self.error = exc
        finally:
            connections.close_all()

    def result(self) -> list[int]:
        self.join(timeout=300)
        assert not self.is_alive() and self.error is None, self.error
        assert self.sent is not None
        return self.sent


def _first_done(*workers: _Worker) -> _Worker:
    """The first of the workers to end (the others may be held at the gate)."""
    for _ in range(1200):
        for w in workers:
            w.join(timeout=0.1)
            if not w.is_alive():
                return w
    raise AssertionError("no worker ended")


@pytest.fixture
def gated(monkeypatch) -> _Gated:  # type: ignore[no-untyped-def]
    gate = _Gated()
    monkeypatch.setitem(graph.STEPS, K.PLACEMENTS, gate)
    return gate


@pytest.mark.django_db(transaction=True)
def test_two_workers_sent_the_job_at_once_run_it_once(jobs, gated) -> None:
    # given the placements job sent twice (two inputs ended at the same moment) and two workers taking
    # the two messages at once
    job_id = jobs[K.PLACEMENTS].id
    start = threading.Barrier(2)
    a, b = _Worker(job_id, start), _Worker(job_id, start)
    a.start(), b.start()

    # then one of them runs it while the other finds it held and leaves it, sending nothing
    assert gated.entered.wait(timeout=120)
    other = _first_done(a, b)
    assert other.result() == [] and (gated.runs, gated.most) == (1, 1)
    gated.gate.set()
    assert [a.result(), b.result()] == [[], []]
    assert (gated.runs, gated.most) == (1, 1)
    job = _state(jobs[K.PLACEMENTS])
    assert (job.state, job.attempts, job.rerun) == ("succeeded", 1, False), job.detail
    assert KeyframePlacement.objects.count() >= 1


@pytest.mark.django_db(transaction=True)
def test_an_input_ending_while_it_runs_keeps_that_run_and_runs_it_again_after(jobs, gated) -> None:
    # given a worker running the placements job
    job_id = jobs[K.PLACEMENTS].id
    MediaJob.objects.filter(id=jobs[K.CVAA].id).update(state=MediaJob.State.PENDING)
    first = _Worker(job_id)
    first.start()
    assert gated.entered.wait(timeout=120)

    # when another worker ends one of its inputs (the previews, skipped without a model)
    second = _Worker(jobs[K.CVAA].id)
    second.start()
    # then that worker sends nothing (the job is held) and the running attempt is left alone, marked
    assert second.result() == []
    assert _state(jobs[K.CVAA]).state == "skipped"
    job = _state(jobs[K.PLACEMENTS])
    assert (job.state, job.attempts, job.rerun) == ("running", 1, True)
    # ... and a duplicate message for it finds it held
    duplicate = _Worker(job_id)
    duplicate.start()
    assert duplicate.result() == [] and gated.runs == 1

    # when the running attempt ends, its rows stay and it goes back in line, sent by its own worker
    gated.gate.set()
    assert first.result() == [job_id]
    job = _state(jobs[K.PLACEMENTS])
    assert (job.state, job.rerun, job.started_at, job.finished_at) == ("pending", False, None, None)
    assert job.detail.startswith("runs again: an input changed while it ran (that run succeeded: image ")
    kept = KeyframePlacement.objects.count()
    assert kept >= 1

    # and the second run reads the inputs as they are now and succeeds, never two at once
    assert graph.job_run(job_id=job_id) == []
    job = _state(jobs[K.PLACEMENTS])
    assert (job.state, job.attempts, job.rerun) == ("succeeded", 2, False), job.error
    assert (gated.runs, gated.most) == (2, 1)
    assert KeyframePlacement.objects.count() == kept
