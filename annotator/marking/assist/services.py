"""Writes of assisted trajectories: start tracking (one target, or every target of a label in a clip),
cancel, and confirm the draft trajectory the tracker left. The tracking itself runs in a worker
(run.py through tasks.py). Who may call these (an annotator on a scene assigned to them, the author of
the job or mark) is checked by the callers through annotator.access."""

from __future__ import annotations

import uuid
from typing import Any

import numpy as np
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotator.exceptions import Conflict
from annotator.marking.geometry import region_shape
from annotator.marking.labels import label_clean, label_set_of_scene
from annotator.marking.services import _write_missed
from annotator.models import Mark, SatelliteImage, Scene, TrackingJob

from .placements import placed_keyframes
from .tasks import enqueue_tracking

# A click makes a box this many metres wide around the point (a car seen from above); 48 video pixels
# where the image has no scale.
CLICK_BOX_M = 4.0
CLICK_BOX_PX = 48.0


def _checked(*, scene: Scene, image: SatelliteImage, label: str, time_s: float, duration_s: float) -> str:
    video = scene.video
    if not video.duration_s or not video.width or not video.height:
        raise ValidationError({"scene": "the video is not probed yet; wait for its processing to finish"})
    if not scene.satellite_images.filter(id=image.id).exists():
        raise ValidationError({"satellite_image": "this image does not belong to the scene"})
    if time_s > video.duration_s + 1e-6:
        raise ValidationError({"time_s": f"{time_s:.2f} s is past the end of the video ({video.duration_s:.2f} s)"})
    limit = settings.SKYMARK_ASSIST_MAX_SECONDS
    if not 0 < duration_s <= limit:
        raise ValidationError({"duration_s": f"track between 0 and {limit:g} s of video at a time"})
    if not placed_keyframes(scene=scene, image=image):
        raise ValidationError(
            {"satellite_image": "no frame of this video is placed on this image yet, so a track cannot be projected"}
        )
    return label_clean(label, names=label_set_of_scene(scene_id=scene.pk))


def _box(scene: Scene, image: SatelliteImage, point: list[float] | None, box: list[float] | None) -> list[float]:
    video = scene.video
    assert video.width and video.height
    if (point is None) == (box is None):
        raise ValidationError({"point": "give either a point (x, y) or a box (x, y, width, height) in video pixels"})
    if box is not None:
        cx, cy, w, h = box
        if w < 8 or h < 8:
            raise ValidationError({"box": "a box needs at least 8 x 8 video pixels"})
    else:
        assert point is not None
        cx, cy = point
        from .placements import metres_per_px

        w = h = CLICK_BOX_PX
        gsd = metres_per_px(image)
        placed = placed_keyframes(scene=scene, image=image)
        if gsd and placed:  # about CLICK_BOX_M on the ground, through the scale of the nearest placement
            p = placed[0].placement
            side = float(np.linalg.norm(np.asarray(p.quad[1]) - np.asarray(p.quad[0])))
            video_px_per_image_px = video.width / side if side else 1.0
            w = h = float(np.clip(CLICK_BOX_M / gsd * video_px_per_image_px, 16, 160))
    if not (0 <= cx <= video.width and 0 <= cy <= video.height):
        field = "box" if box is not None else "point"
        raise ValidationError({field: f"({cx:.0f}, {cy:.0f}) is outside the {video.width}x{video.height} video"})
    return [float(cx), float(cy), float(w), float(h)]


@transaction.atomic
def tracking_start(
    *,
    scene: Scene,
    author: Any,
    satellite_image: SatelliteImage,
    label: str,
    time_s: float,
    point: list[float] | None = None,
    box: list[float] | None = None,
    direction: str = TrackingJob.Direction.FORWARD,
    duration_s: float = 10.0,
) -> TrackingJob:
    """Queue the tracking of the target at `point` or in `box` (video pixels) at `time_s`. Raises
    ValidationError with the field to fix (the video not probed, no placement to project through ...)."""
    clean = _checked(scene=scene, image=satellite_image, label=label, time_s=time_s, duration_s=duration_s)
    job = TrackingJob.objects.create(
        scene=scene,
        satellite_image=satellite_image,
        author=author,
        label=clean,
        time_s=time_s,
        box=_box(scene, satellite_image, point, box),
        direction=direction,
        duration_s=duration_s,
    )
    enqueue_tracking(job_id=job.id)
    return job


def _inverse_point(scene: Scene, image: SatelliteImage, mark: Mark) -> list[float] | None:
    """Where a point or ellipse mark's centre lies in the video at its time: through the inverse of the
    nearest placement's homography (keyframe image px scaled to video px)."""
    placed = placed_keyframes(scene=scene, image=image)
    if not placed:
        return None
    near = min(placed, key=lambda k: abs(k.time_s - mark.time_start))
    centre = region_shape(mark.kind, mark.geometry).centroid if mark.kind == Mark.Kind.ELLIPSE else None
    x, y = (centre.x, centre.y) if centre is not None else mark.geometry["coordinates"]
    assert near.placement.homography is not None
    q = np.linalg.inv(near.placement.homography) @ np.array([x, y, 1.0])
    fw, fh = near.placement.frame_size
    video = scene.video
    assert video.width and video.height
    return [float(q[0] / q[2] * video.width / fw), float(q[1] / q[2] * video.height / fh)]


@transaction.atomic
def tracking_start_batch(
    *, scene: Scene, author: Any, satellite_image: SatelliteImage, label: str, start_s: float, end_s: float
) -> list[TrackingJob]:
    """Track every target of `label` in the clip [start_s, end_s]: each of the author's point and
    ellipse marks of that label on the image whose time lies in the clip (a target marked once where
    it was seen), tracked both ways from its time to the clip's ends, one draft trajectory each.
    Raises ValidationError when there is no such mark or the clip is empty."""
    if end_s <= start_s:
        raise ValidationError({"end_s": "the clip ends before it starts"})
    clean = _checked(scene=scene, image=satellite_image, label=label, time_s=start_s, duration_s=end_s - start_s)
    targets = Mark.objects.filter(
        scene=scene,
        satellite_image=satellite_image,
        author=author,
        label=clean,
        kind__in=[Mark.Kind.POINT, Mark.Kind.ELLIPSE],
        time_start__gte=start_s,
        time_start__lte=end_s,
    ).order_by("time_start", "id")
    key = uuid.uuid4()
    jobs = []
    for mark in targets:
        at = _inverse_point(scene, satellite_image, mark)
        video = scene.video
        if at is None or not (0 <= at[0] <= (video.width or 0) and 0 <= at[1] <= (video.height or 0)):
            continue  # the mark lies outside the video frame at its time
        job = TrackingJob.objects.create(
            scene=scene,
            satellite_image=satellite_image,
            author=author,
            label=clean,
            time_s=mark.time_start,
            box=_box(scene, satellite_image, at, None),
            direction=TrackingJob.Direction.BOTH,
            duration_s=max(mark.time_start - start_s, end_s - mark.time_start, 0.1),
            batch_key=key,
            from_mark=mark,
        )
        enqueue_tracking(job_id=job.id)
        jobs.append(job)
    if not jobs:
        raise ValidationError(
            {"label": f"none of your point or ellipse marks labelled {clean!r} lies in the clip and in the video frame"}
        )
    return jobs


def tracking_cancel(*, job: TrackingJob) -> TrackingJob:
    """Ask a running job to stop (its worker stops between frames and keeps nothing); a pending one is
    cancelled at once. Raises Conflict when it has finished."""
    now = timezone.now()
    TrackingJob.objects.filter(id=job.id, state=TrackingJob.State.PENDING).update(
        state=TrackingJob.State.CANCELLED, cancel_requested=True, finished_at=now, detail="cancelled before it started"
    )
    from .run import stale_before

    # A running job whose worker stopped answering has no one to notice the cancel: it ends now.
    TrackingJob.objects.filter(id=job.id, state=TrackingJob.State.RUNNING, heartbeat_at__lt=stale_before()).update(
        state=TrackingJob.State.CANCELLED, cancel_requested=True, finished_at=now, detail="its worker stopped answering"
    )
    TrackingJob.objects.filter(id=job.id, state=TrackingJob.State.RUNNING).update(cancel_requested=True)
    job.refresh_from_db()
    if job.state in (TrackingJob.State.SUCCEEDED, TrackingJob.State.FAILED):
        raise Conflict(f"this tracking has {job.state}; there is nothing to cancel")
    return job


def mark_confirm(*, mark: Mark, version: int) -> Mark:
    """The author accepts a draft trajectory as theirs: it stops being a draft (the version moves on).
    Raises StaleWrite (409 with the current mark) when `version` is not current, ValidationError when
    the mark is not a draft."""
    if not mark.draft:
        raise ValidationError({"mark": "this mark is not a draft; there is nothing to confirm"})
    updated = Mark.objects.filter(id=mark.id, version=version, draft=True, locked=False).update(
        draft=False, version=F("version") + 1, updated_at=timezone.now()
    )
    if not updated:
        raise _write_missed(mark.id)
    mark.refresh_from_db()
    return mark
