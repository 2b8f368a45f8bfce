"""The job graph: which step each job kind runs, what follows what, and in which order jobs run.

The one owner of that order: the Celery task, the import services and `process_scenes` all ask
this module rather than working it out themselves."""

from __future__ import annotations

from django.db.models import Q

from annotator.models import MediaJob, SatelliteImage, Scene
from annotator.models.media import IMAGE_JOB_KINDS, VIDEO_JOB_KINDS

from .jobs import Outcome, Step, media_job_again, media_job_run
from .steps import cvaa, image, video

K = MediaJob.Kind
STEPS: dict[str, Step] = {
    K.PROBE: video.probe_step,
    K.KEYFRAMES: video.keyframes_step,
    K.FILMSTRIP: video.filmstrip_step,
    K.PROXY: video.proxy_step,
    K.TELEMETRY: video.telemetry_step,
    K.RENDER: image.render_step,
    K.GEOREFERENCE: image.georeference_step,
    K.TILES: image.tiles_step,
    K.VALID_AREA: image.valid_area_step,
    K.CVAA: cvaa.previews_step,
    K.PLACEMENTS: cvaa.placements_step,
}
# Jobs that start once a job succeeds (the rest start right away). Previews need the keyframes and
# the satellite image's original file, which exists from the import on (not its rendering). Placements
# read the keyframes, the telemetry, the previews (learned fallback) and each image's georeference
# (IMAGE_NEXT: a scene job that follows an image job of one of its images).
NEXT: dict[str, list[str]] = {
    K.PROBE: [K.KEYFRAMES, K.PROXY, K.TELEMETRY],
    K.KEYFRAMES: [K.FILMSTRIP, K.CVAA, K.PLACEMENTS],
    K.TELEMETRY: [K.PLACEMENTS],
    K.CVAA: [K.PLACEMENTS],
    K.RENDER: [K.TILES],
}
IMAGE_NEXT: dict[str, list[str]] = {K.GEOREFERENCE: [K.PLACEMENTS]}
# Kinds with several inputs: such a job waits (stays `pending`, jobs.JobWaiting) while any input is
# still to run, and is made to run again (jobs.media_job_again), even after it succeeded, whenever an
# input ends in any state (a skipped or failed input is final too), so the last input to finish starts
# it with everything there is. It runs once at a time: an input that ends while it runs marks it, and
# it goes back in line as that run ends (jobs.Outcome.AGAIN).
REDO = {K.PLACEMENTS}
# Kinds whose work belongs on a GPU worker (tasks.py sends them with the task routed to `gpu`).
GPU_KINDS = {K.CVAA}
FIRST = [kind for kind in STEPS if all(kind not in after for after in NEXT.values())]


def _depth(kind: str) -> int:
    parents = [k for k, after in (NEXT | IMAGE_NEXT).items() if kind in after]
    return 1 + max((_depth(p) for p in parents), default=-1)


def jobs_create_for_scene(*, scene: Scene) -> list[MediaJob]:
    """The scene's video jobs (existing ones are kept, so scenes imported before a kind existed get it)."""
    return [MediaJob.objects.get_or_create(scene=scene, kind=k)[0] for k in VIDEO_JOB_KINDS if k in STEPS]


def jobs_create_for_image(*, image: SatelliteImage) -> list[MediaJob]:
    return [MediaJob.objects.get_or_create(satellite_image=image, kind=k)[0] for k in IMAGE_JOB_KINDS if k in STEPS]


def jobs_for_scenes(*, scenes: list[Scene]) -> list[MediaJob]:
    """Every job of these scenes and their images, creating the kinds they lack, in run order."""
    for scene in scenes:
        jobs_create_for_scene(scene=scene)
        for sat in scene.satellite_images.all():
            jobs_create_for_image(image=sat)
    jobs = MediaJob.objects.filter(Q(scene__in=scenes) | Q(satellite_image__scenes__in=scenes)).distinct()
    return jobs_ordered(list(jobs))


def jobs_ordered(jobs: list[MediaJob]) -> list[MediaJob]:
    """Jobs in dependency order: a job after the job whose success starts it."""
    return sorted(jobs, key=lambda j: (_depth(j.kind), j.id))


def jobs_first(jobs: list[MediaJob]) -> list[MediaJob]:
    """The jobs that wait for no other job; the rest follow as their inputs succeed."""
    return [job for job in jobs if job.kind in FIRST]


def job_followers(job: MediaJob) -> list[MediaJob]:
    if job.scene_id:
        return list(MediaJob.objects.filter(kind__in=NEXT.get(job.kind, []), scene_id=job.scene_id).order_by("id"))
    own = MediaJob.objects.filter(kind__in=NEXT.get(job.kind, []), satellite_image_id=job.satellite_image_id)
    scenes = MediaJob.objects.filter(
        kind__in=IMAGE_NEXT.get(job.kind, []), scene__satellite_images=job.satellite_image_id
    )
    return list((own | scenes).distinct().order_by("id"))


def job_inputs_pending(job: MediaJob) -> list[str]:
    """The kinds of a REDO job's inputs still to run (pending, or running): what it waits for."""
    scene_kinds = [k for k, after in NEXT.items() if job.kind in after]
    image_kinds = [k for k, after in IMAGE_NEXT.items() if job.kind in after]
    waiting = MediaJob.objects.filter(state__in=[MediaJob.State.PENDING, MediaJob.State.RUNNING]).filter(
        Q(scene_id=job.scene_id, kind__in=scene_kinds) | Q(satellite_image__scenes=job.scene_id, kind__in=image_kinds)
    )
    return sorted(set(waiting.values_list("kind", flat=True)))


def _redo(followers: list[MediaJob]) -> list[MediaJob]:
    """Followers to send: a REDO one is made to run again whatever it ended in (its input changed),
    and is sent now unless a live worker runs it (that worker sends it again as it ends)."""
    return [job for job in followers if job.kind not in REDO or media_job_again(job_id=job.id)]


def job_run(*, job_id: int) -> list[MediaJob]:
    """Run one job's step (see jobs.media_job_run for claiming and failures). Returns the jobs
    that may start now: its followers when it succeeded; when this run ended it skipped or failed,
    only its REDO followers (they take a finished input as it is); the job itself when an input
    changed while it ran."""
    job = MediaJob.objects.get(id=job_id)
    outcome = media_job_run(job_id=job_id, step=STEPS[job.kind])
    if outcome is Outcome.SUCCEEDED:
        return _redo(job_followers(job))
    if outcome is Outcome.ENDED:
        return _redo([f for f in job_followers(job) if f.kind in REDO])
    if outcome is Outcome.AGAIN:
        return [MediaJob.objects.get(id=job_id)]
    return []
