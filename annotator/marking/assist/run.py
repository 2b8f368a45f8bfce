"""The worker's side of a tracking job: decode, track, project, and leave a draft trajectory mark.

A job is claimed once (pending -> running, by a conditional UPDATE), so a message delivered twice does
nothing the second time. Progress is written as frames are tracked; a cancel asked for is read between
frames (at most every CANCEL_POLL_S) and ends the job `cancelled` with nothing written. Any reason the
job cannot finish (the video unreadable, the target lost at once, nothing projected) ends it `failed`
with one sentence, and no mark.
"""

from __future__ import annotations

import math
import time
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotator.marking.services import mark_create
from annotator.models import TrackingJob
from annotator.storage import local_copy
from media_tools import MediaError

from .placements import metres_per_px, placed_keyframes

CANCEL_POLL_S = 0.5
# A running job whose worker has not written for this long is taken to have lost it (killed, out of
# memory): a new delivery of its message takes it up again, and a cancel ends it at once.
STALE_S = 120.0


class _CancelledError(Exception):
    pass


def stale_before() -> Any:
    """Running jobs whose last heartbeat is older than this lost their worker."""
    return timezone.now() - timedelta(seconds=STALE_S)


def _claim(job_id: int) -> TrackingJob | None:
    now = timezone.now()
    claimable = Q(state=TrackingJob.State.PENDING) | Q(state=TrackingJob.State.RUNNING, heartbeat_at__lt=stale_before())
    claimed = TrackingJob.objects.filter(claimable, id=job_id, cancel_requested=False).update(
        state=TrackingJob.State.RUNNING, started_at=now, heartbeat_at=now, progress=0
    )
    return TrackingJob.objects.select_related("scene__video", "satellite_image").get(id=job_id) if claimed else None


def _watch(job_id: int, share: tuple[int, int]) -> tuple[Any, Any]:
    """progress(percent of this pass) and cancelled() callbacks for one tracking pass; `share` is the
    (offset, width) of the job's progress this pass covers (backward then forward)."""
    last = {"poll": 0.0, "cancel": False, "pct": -1}

    def progress(pct: int) -> None:
        overall = share[0] + share[1] * pct // 100
        if overall != last["pct"]:
            last["pct"] = overall
            TrackingJob.objects.filter(id=job_id).update(progress=min(overall, 99), heartbeat_at=timezone.now())

    def cancelled() -> bool:
        now = time.monotonic()
        if now - float(last["poll"]) >= CANCEL_POLL_S:
            last["poll"] = now
            last["cancel"] = TrackingJob.objects.filter(id=job_id, cancel_requested=True).exists()
        return bool(last["cancel"])

    return progress, cancelled


def _track(job: TrackingJob, video_path: Any) -> list[Any]:
    from media_tools.assist import Box, decode, frame_count, track

    box = Box(*job.box)
    duration = job.scene.video.duration_s or 0.0
    passes = []
    if job.direction in (TrackingJob.Direction.BACKWARD, TrackingJob.Direction.BOTH):
        passes.append((max(0.0, job.time_s - job.duration_s), job.time_s, True))
    if job.direction in (TrackingJob.Direction.FORWARD, TrackingJob.Direction.BOTH):
        passes.append((job.time_s, min(duration, job.time_s + job.duration_s), False))
    width = 100 // len(passes)
    back: list[Any] = []
    fwd: list[Any] = []
    for n, (start, end, backward) in enumerate(passes):
        progress, cancelled = _watch(job.id, (n * width, width))
        frames = decode(video_path, start_s=start, end_s=end, backward=backward)
        total = frame_count(video_path, start_s=start, end_s=end)
        result = track(frames, box, total=total, progress=progress, cancelled=cancelled)
        if result.cancelled:
            raise _CancelledError()
        if backward:
            back = list(reversed(result.frames))
        else:
            fwd = result.frames
    # Both passes start on the clicked frame: it is kept once.
    return [*back, *fwd[1:]] if back and fwd else [*back, *fwd]


def _vertices(job: TrackingJob, frames: list[Any]) -> list[dict[str, Any]]:
    from media_tools.assist import project_track

    video = job.scene.video
    image = job.satellite_image
    vertices = project_track(
        frames,
        placed_keyframes(scene=job.scene, image=image),
        video_size=(video.width or 1, video.height or 1),
        metres_per_px=metres_per_px(image),
        max_gap_s=settings.SKYMARK_ASSIST_MAX_GAP_S,
    )
    rows = []
    for f, v in zip(frames, vertices, strict=True):
        inside = v.x is not None and v.y is not None and 0 <= v.x <= image.width and 0 <= v.y <= image.height
        rows.append(
            {
                "t": round(v.time_s, 4),
                "x": round(v.x, 2) if inside and v.x is not None else None,
                "y": round(v.y, 2) if inside and v.y is not None else None,
                "source": v.source if inside or v.x is None else "off the image",
                "uncertainty_m": None if v.uncertainty_m is None else round(v.uncertainty_m, 3),
                "uncertainty_px": None if v.uncertainty_px is None else round(v.uncertainty_px, 2),
                "score": round(f.score, 3),
                # the tracker's own doubt: its back-check error (px, in the uncertainty already) and,
                # for a lost frame, which check it failed (media_tools.assist.tracker)
                "fb_px": round(f.fb_px, 2) if f.fb_px is not None and math.isfinite(f.fb_px) else None,
                "why": f.why,
            }
        )
    return rows


def tracking_run(*, job_id: int) -> None:
    """Run a pending job (module doc). Side effects: the job row's state, progress and result; on
    success one draft trajectory mark by the job's author."""
    job = _claim(job_id)
    if job is None:
        return
    try:
        with local_copy(job.scene.video.file.name or "") as path:
            frames = _track(job, path)
        rows = _vertices(job, frames)
        mark = _draft(job, rows)
    except _CancelledError:
        _finish(job_id, TrackingJob.State.CANCELLED, detail="cancelled; nothing was kept")
        return
    except (MediaError, ValueError, ValidationError) as exc:
        reason = "; ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
        _finish(job_id, TrackingJob.State.FAILED, error=reason or "tracking failed")
        return
    placed = [r for r in rows if r["x"] is not None]
    lost = sum(1 for r in rows if r["source"] == "lost")
    detail = f"{len(placed)} of {len(rows)} frames on the map; {lost} lost in the video"
    _finish(job_id, TrackingJob.State.SUCCEEDED, detail=detail, result={"vertices": rows}, mark_id=mark.id)


def _draft(job: TrackingJob, rows: list[dict[str, Any]]) -> Any:
    placed = [r for r in rows if r["x"] is not None]
    if len(placed) < 2:
        lost = sum(1 for r in rows if r["source"] == "lost")
        raise ValueError(
            f"the target was followed onto the map in {len(placed)} frame(s) only ({lost} lost in the video); "
            "click its centre or draw a box around it on a clearer frame"
        )
    with transaction.atomic():
        if TrackingJob.objects.filter(id=job.id, cancel_requested=True).exists():
            raise _CancelledError()
        return mark_create(
            scene=job.scene,
            author=job.author,
            satellite_image=job.satellite_image,
            kind="polyline",
            geometry={"type": "LineString", "coordinates": [[r["x"], r["y"]] for r in placed]},
            label=job.label,
            time_start=placed[0]["t"],
            time_end=placed[-1]["t"],
            vertex_times=[r["t"] for r in placed],
            draft=True,
        )


def _finish(job_id: int, state: str, **fields: Any) -> None:
    TrackingJob.objects.filter(id=job_id).update(
        state=state, finished_at=timezone.now(), progress=100 if state == TrackingJob.State.SUCCEEDED else 0,
        **fields,
    )  # fmt: skip


def tracking_fail(*, job_id: int, reason: str) -> None:
    """A running job its worker could not finish ends `failed` with the reason."""
    TrackingJob.objects.filter(id=job_id, state=TrackingJob.State.RUNNING).update(
        state=TrackingJob.State.FAILED, finished_at=timezone.now(), error=reason[:1000]
    )
