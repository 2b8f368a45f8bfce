"""annotator.processing.jobs: leases, reclaiming the job of a worker that vanished, retries.

The worker tests start real `celery -A config worker` processes and SIGKILL one in the middle of
a keyframes job, on the filesystem broker and on Redis."""

from __future__ import annotations

import subprocess
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from annotator.intake.services import SceneSpec, scene_import
from annotator.models import Keyframe, MediaJob
from annotator.processing.graph import STEPS
from annotator.processing.jobs import Outcome, jobs_reclaim_lost, media_job_run
from tests.factories import stored_files, tiny_video
from tests.workers import Workers, wait_for, workers_fixture  # noqa: F401 (the `workers` fixture)

# 600 keyframes at 1280x720: about 2-3 s of work on an idle machine, so the job is seen running and
# killed half way whatever the load (30 s at 640x360 took 0.5 s when the machine was quiet).
CLIP_S, CLIP_FPS, KEYFRAME_FPS = 60, 10, 10
TERMINAL = ("succeeded", "failed", "skipped")


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 60 s 1280x720 test pattern: long enough to kill its keyframes job half way."""
    out = tmp_path_factory.mktemp("clip") / "pattern.mp4"
    subprocess.run(
        ["ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", f"testsrc2=size=1280x720:rate={CLIP_FPS}",
         "-t", str(CLIP_S), "-pix_fmt", "yuv420p", "-c:v", "libx264", "-preset", "ultrafast", str(out)],
        check=True, capture_output=True,
    )  # fmt: skip
    return out


def _running_or_fail(job_id: int) -> bool:
    job = MediaJob.objects.get(id=job_id)
    if job.state in TERMINAL:
        pytest.fail(f"the keyframes job ended ({job.state}) before it could be killed; make the clip longer")
    return job.state == "running" and job.progress > 0


def _scene_jobs_ended(scene_id: int) -> list[MediaJob] | None:
    jobs = list(MediaJob.objects.filter(scene_id=scene_id)) + list(
        MediaJob.objects.filter(satellite_image__scenes__id=scene_id)
    )
    return jobs if all(j.state in TERMINAL for j in jobs) else None


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_killed_workers_job_is_taken_up_again_and_succeeds_once(workers: Workers, clip: Path, admin) -> None:
    # given a worker processing a freshly imported scene (keyframes at 10 fps: 600 frames)
    workers.env["KEYFRAME_FPS"] = str(KEYFRAME_FPS)
    first = workers.start_ready()
    scene = scene_import(spec=SceneSpec(name="killed", video=clip, satellite_from_keyframe_s=0.0), created_by=admin)
    job = scene.jobs.get(kind="keyframes")
    wait_for("the keyframes job to run with some progress", lambda: _running_or_fail(job.id))

    # when its worker is killed mid-job
    workers.kill(first)
    killed_at = time.monotonic()
    job.refresh_from_db()
    assert (job.state, job.attempts) == ("running", 1)  # nobody told the row
    # ... and another worker starts
    workers.start()

    # then the job is taken up again once its lease runs out, and every job of the scene ends
    wait_for("the keyframes job to be taken up again", lambda: MediaJob.objects.filter(id=job.id, attempts=2).exists())
    reclaim_s = time.monotonic() - killed_at
    jobs = {j.kind: j for j in wait_for("every job of the scene to end", lambda: _scene_jobs_ended(scene.id))}
    done_s = time.monotonic() - killed_at
    print(f"kill -> taken up again: {reclaim_s:.1f} s; kill -> all jobs ended: {done_s:.1f} s")
    assert reclaim_s < settings.SKYMARK_JOB_LEASE_S * 4 + 30
    keyframes = jobs["keyframes"]
    assert (keyframes.state, keyframes.attempts, keyframes.progress) == ("succeeded", 2, 100), keyframes.error
    assert keyframes.lease_until is None
    # ... its followers ran once, after it
    assert (jobs["filmstrip"].state, jobs["filmstrip"].attempts) == ("succeeded", 1)
    # ... with the right output: one row per frame, each file there, no file of the killed run left
    rows = list(Keyframe.objects.filter(video=scene.video).order_by("index"))
    assert [k.index for k in rows] == list(range(CLIP_S * KEYFRAME_FPS))
    stored = {f for f in stored_files(Path(settings.MEDIA_ROOT)) if f.startswith(f"keyframes/v{scene.video.id}/")}
    assert stored == {k.image.name for k in rows}
    # ... and no temporary folder of either run
    assert not (Path(settings.SKYMARK_JOB_TMP_DIR) / f"job-{job.id}").exists()


# ---- the same rules without a worker process -------------------------------------------------


@pytest.fixture
def probed(admin):  # type: ignore[no-untyped-def]
    scene = scene_import(
        spec=SceneSpec(name="lease", video=tiny_video(), satellite_from_keyframe_s=0.0), created_by=admin
    )
    assert media_job_run(job_id=scene.jobs.get(kind="probe").id, step=STEPS["probe"]) is Outcome.SUCCEEDED
    return scene


def _running(job: MediaJob, *, lease_until, progress: int = 40) -> MediaJob:  # type: ignore[no-untyped-def]
    MediaJob.objects.filter(id=job.id).update(state="running", progress=progress, attempts=1, lease_until=lease_until)
    job.refresh_from_db()
    return job


@pytest.mark.django_db
def test_a_job_with_a_live_lease_is_left_to_its_worker(probed) -> None:
    job = _running(probed.jobs.get(kind="keyframes"), lease_until=timezone.now() + timedelta(seconds=60))
    calls: list[int] = []
    assert media_job_run(job_id=job.id, step=lambda j, p: calls.append(j.id) or "again") is Outcome.NOT_RUN
    assert jobs_reclaim_lost() == []
    job.refresh_from_db()
    assert (calls, job.state, job.attempts) == ([], "running", 1)


@pytest.mark.django_db
def test_an_expired_lease_is_reclaimed_once_and_the_rerun_removes_the_dead_runs_files(probed, media_root) -> None:
    # given a keyframes job whose worker died after storing two frames (its lease ran out)
    job = _running(probed.jobs.get(kind="keyframes"), lease_until=timezone.now() - timedelta(seconds=1))
    orphans = [media_root / f"keyframes/v{probed.video.id}/{n:06d}.jpg" for n in (0, 1)]
    for path in orphans:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"partial")

    # when workers look for lost jobs (twice, as two workers would)
    taken, again = jobs_reclaim_lost(), jobs_reclaim_lost()

    # then it is put back in line once, with a note saying why
    assert [j.id for j in taken] == [job.id] and again == []
    job.refresh_from_db()
    assert (job.state, job.lease_until) == ("pending", None)
    assert job.detail == "its worker stopped at 40%; queued again"
    # ... and its rerun replaces the dead run's files instead of leaving them beside its own
    assert media_job_run(job_id=job.id, step=STEPS["keyframes"]) is Outcome.SUCCEEDED
    rows = {k.image.name for k in Keyframe.objects.filter(video=probed.video)}
    stored = {f for f in stored_files(media_root) if f.startswith("keyframes/")}
    assert rows and stored == rows
    job.refresh_from_db()
    assert (job.state, job.attempts, job.lease_until) == ("succeeded", 2, None)


@pytest.mark.django_db
def test_a_job_whose_workers_keep_vanishing_fails_with_a_reason_instead_of_looping(probed, admin, api) -> None:
    # given a job whose worker vanished twice before, now a third time
    job = _running(probed.jobs.get(kind="keyframes"), lease_until=timezone.now() - timedelta(seconds=1))
    MediaJob.objects.filter(id=job.id).update(workers_lost=2)

    # when workers look for lost jobs / then it is not sent again but failed, saying why
    assert jobs_reclaim_lost() == []
    job.refresh_from_db()
    assert (job.state, job.workers_lost, job.lease_until) == ("failed", 3, None)
    assert job.error.startswith("its worker stopped 3 times while running this step")
    # ... and an admin's retry gives it its chances back
    assert api(admin).post(f"/api/jobs/{job.id}/retry/").status_code == 200
    job.refresh_from_db()
    assert (job.state, job.workers_lost) == ("pending", 0)


@pytest.mark.django_db
def test_a_run_that_was_taken_over_does_not_overwrite_its_successor(probed) -> None:
    job = probed.jobs.get(kind="keyframes")

    def overtaken(j: MediaJob, progress) -> str:  # type: ignore[no-untyped-def]
        # another worker took the job while this one was (wrongly) thought dead
        MediaJob.objects.filter(id=j.id).update(attempts=j.attempts + 1, lease_until=timezone.now())
        return "stale result"

    assert media_job_run(job_id=job.id, step=overtaken) is Outcome.NOT_RUN
    job.refresh_from_db()
    assert job.state == "running" and job.detail != "stale result"


@pytest.mark.django_db
@pytest.mark.parametrize("state", ["failed", "skipped", "succeeded", "pending", "expired"])
def test_admin_retries_any_job_that_is_not_running(probed, admin, api, state: str) -> None:
    job = probed.jobs.get(kind="keyframes")
    if state == "expired":
        _running(job, lease_until=timezone.now() - timedelta(seconds=1))
    else:
        MediaJob.objects.filter(id=job.id).update(state=state, error="boom" if state == "failed" else "")

    response = api(admin).post(f"/api/jobs/{job.id}/retry/")

    assert response.status_code == 200, response.content
    job.refresh_from_db()
    assert (job.state, job.error, job.lease_until) == ("pending", "", None)


@pytest.mark.django_db
def test_retrying_a_job_a_live_worker_runs_is_409(probed, admin, api) -> None:
    job = _running(probed.jobs.get(kind="keyframes"), lease_until=timezone.now() + timedelta(seconds=60))

    response = api(admin).post(f"/api/jobs/{job.id}/retry/")

    assert response.status_code == 409
    assert "running (40%) on a live worker" in response.json()["detail"]
    job.refresh_from_db()
    assert job.state == "running"
