"""The job graph: which step each job kind runs, what follows what, and in which order jobs run.

The one owner of that order: the Celery task, the import services and `process_scenes` all ask
this module rather than working it out themselves."""

from __future__ import annotations

from django.db.models import Q

from annotator.models import MediaJob, SatelliteImage, Scene
from annotator.models.media import IMAGE_JOB_KINDS, VIDEO_JOB_KINDS

from .jobs import Step, media_job_run
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
}
# Jobs that start once a job succeeds (the rest start right away). Previews need the keyframes and
# the satellite image's original file, which exists from the import on (not its rendering).
NEXT: dict[str, list[str]] = {
    K.PROBE: [K.KEYFRAMES, K.PROXY, K.TELEMETRY],
    K.KEYFRAMES: [K.FILMSTRIP, K.CVAA],
    K.RENDER: [K.TILES],
}
# Kinds whose work belongs on a GPU worker (tasks.py sends them with the task routed to `gpu`).
GPU_KINDS = {K.CVAA}
FIRST = [kind for kind in STEPS if all(kind not in after for after in NEXT.values())]


def _depth(kind: str) -> int:
    parents = [k for k, after in NEXT.items() if kind in after]
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
    target = {"scene_id": job.scene_id} if job.scene_id else {"satellite_image_id": job.satellite_image_id}
    return list(MediaJob.objects.filter(kind__in=NEXT.get(job.kind, []), **target).order_by("id"))


def job_run(*, job_id: int) -> list[MediaJob]:
    """Run one job's step (see jobs.media_job_run for claiming and failures). Returns the jobs
    that may start now: its followers when it succeeded, none otherwise."""
    job = MediaJob.objects.get(id=job_id)
    if not media_job_run(job_id=job_id, step=STEPS[job.kind]):
        return []
    return job_followers(job)
