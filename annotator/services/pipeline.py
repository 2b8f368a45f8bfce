"""Which step each job kind runs, what follows it, and the jobs a new scene or image gets."""

from __future__ import annotations

from annotator.models import MediaJob, SatelliteImage, Scene
from annotator.models.media import IMAGE_JOB_KINDS, VIDEO_JOB_KINDS

from . import image_steps, video_steps
from .jobs import Step

K = MediaJob.Kind
STEPS: dict[str, Step] = {
    K.PROBE: video_steps.probe_step,
    K.KEYFRAMES: video_steps.keyframes_step,
    K.FILMSTRIP: video_steps.filmstrip_step,
    K.PROXY: video_steps.proxy_step,
    K.TELEMETRY: video_steps.telemetry_step,
    K.RENDER: image_steps.render_step,
    K.GEOREFERENCE: image_steps.georeference_step,
    K.TILES: image_steps.tiles_step,
}
# Jobs that start once a job succeeds (the rest start right away).
NEXT: dict[str, list[str]] = {
    K.PROBE: [K.KEYFRAMES, K.PROXY, K.TELEMETRY],
    K.KEYFRAMES: [K.FILMSTRIP],
    K.RENDER: [K.TILES],
}
FIRST = [kind for kind in STEPS if all(kind not in after for after in NEXT.values())]


def jobs_create_for_scene(*, scene: Scene) -> list[MediaJob]:
    return [MediaJob.objects.get_or_create(scene=scene, kind=k)[0] for k in VIDEO_JOB_KINDS if k in STEPS]


def jobs_create_for_image(*, image: SatelliteImage) -> list[MediaJob]:
    return [MediaJob.objects.get_or_create(satellite_image=image, kind=k)[0] for k in IMAGE_JOB_KINDS if k in STEPS]
