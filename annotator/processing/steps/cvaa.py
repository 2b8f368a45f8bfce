"""The `cvaa` job step: retrieval previews for every keyframe of a scene with the active model; and the
`placements` step: every keyframe placed on the scene's images from the most trusted source.

With no active checkpoint the job ends `skipped` (not `failed`: nothing is wrong with the media) and
says how to get one; making a checkpoint active puts every scene's preview job back in the queue. A worker
whose CVAA_DEVICE it does not have (cuda on a CPU-only build) fails the job saying so."""

from __future__ import annotations

from annotator.models import MediaJob, Scene
from annotator.processing.cvaa.checkpoints import NO_MODEL, checkpoint_active
from annotator.processing.cvaa.placements import placements_build
from annotator.processing.cvaa.previews import previews_build
from annotator.processing.jobs import JobSkipped, JobWaiting, ProgressFn
from media_tools import MediaError
from media_tools.cvaa import DeviceUnavailable


def previews_step(job: MediaJob, progress: ProgressFn) -> str:
    assert job.scene_id is not None
    scene = Scene.objects.select_related("video").get(id=job.scene_id)
    checkpoint = checkpoint_active()
    if checkpoint is None:
        raise JobSkipped(NO_MODEL)
    if not scene.video.keyframes.exists():
        raise JobSkipped("no keyframes to place yet: the keyframes job has not produced any")
    try:
        run = previews_build(scene=scene, checkpoint=checkpoint, progress=progress)
    except DeviceUnavailable as exc:
        # The worker's setting is wrong, not the media, and a retry would meet the same machine: the job
        # fails (jobs.media_job_run fails on MediaError) with the reason instead of crashing and retrying.
        raise MediaError(f"CVAA_DEVICE of this worker: {exc}") from exc
    return run.summary(checkpoint)


def placements_step(job: MediaJob, progress: ProgressFn) -> str:
    """Every keyframe placed on each of the scene's images (cvaa/placements.py). It waits (pending) while
    an input is still to run; the last input to finish sends it again (graph.REDO)."""
    from annotator.processing.graph import job_inputs_pending  # the graph imports the steps

    assert job.scene_id is not None
    if waiting := job_inputs_pending(job):
        raise JobWaiting(waiting)
    scene = Scene.objects.select_related("video").get(id=job.scene_id)
    if not scene.video.keyframes.exists():
        raise JobSkipped("no keyframes to place yet: the keyframes job has not produced any")
    return placements_build(scene=scene, progress=progress).summary()
