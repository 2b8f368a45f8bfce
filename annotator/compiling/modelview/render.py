"""Rendering and storing model views: one view (a sync backfill, an old single-view message) or
every pending one (the `views` worker's drain), each under a claim with a lease (claims.py), the
satellite image decoded once per worker process for many items (cache.py)."""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.utils import timezone

import media_tools
from annotator.models import ModelView, SatelliteImage
from annotator.processing.lease import heartbeat
from annotator.processing.leftovers import folder_leftovers_remove
from annotator.storage import delete_quietly, delete_tree_quietly, local_copy, store_bytes, store_path
from media_tools.video import cut_segment

from .cache import image_base
from .claims import CLAIM_SIZE, claim_renew, mine, new_claim, view_claim_one, views_claim_pending
from .plan import draw_pictures, lettered_crop, view_plan

log = logging.getLogger(__name__)
S = ModelView.State
# Attempts at a view that fails on something other than its media before it stays `failed`.
MAX_TRIES = 3


def view_folder(item_id: int) -> str:
    """Where a view's files are stored, one subfolder per attempt: its own (one view per item), so
    whatever is stored there and its row does not name is a leftover of a run that was killed."""
    return f"modelviews/{item_id}"


def _leftovers_remove(view: ModelView) -> None:
    """A view claimed before (attempts > 1) may hold, under its folder, files a killed run stored
    and never pointed its row at; remove them before it is drawn again. The claim's lease keeps
    every other run from writing there; a stalled run that writes after this deletes its own files
    once it finds the view taken over (_finish). A first claim has nothing to look for."""
    if view.attempts > 1:
        removed = folder_leftovers_remove(view_folder(view.item_id), stored_names(view))
        if removed:
            log.info("model view %s: removed what an earlier, killed run left: %s", view.id, removed)


def _gone(view_id: int) -> bool:
    """True (and said at info level) when the view's row is no longer there: its item was deleted
    after the job was queued. Nothing is left to draw, so the job ends without a retry or an error."""
    if ModelView.objects.filter(id=view_id).exists():
        return False
    log.info("model view %s: its item no longer exists; nothing to render", view_id)
    return True


def _reporter(view_id: int, claim: str) -> Callable[[float], None]:
    last = {"at": 0.0}

    def report(fraction: float) -> None:
        # A view takes a fraction of a second; only a slow one (a long segment) is worth a write.
        if time.monotonic() - last["at"] < 0.5:
            return
        pct = max(0, min(99, int(fraction * 100)))
        mine(view_id, claim).filter(progress__lt=pct).update(progress=pct, updated_at=timezone.now())
        last["at"] = time.monotonic()

    report(0.0)  # starts the clock: the first half second writes nothing
    return report


def _cut(view: ModelView, segment: tuple[float, float], out: Path) -> tuple[Path, str]:
    video = view.item.scene.video
    name = str(video.proxy.name if video.proxy else video.file.name)
    with local_copy(name) as src:
        info = media_tools.probe_video(src, ffprobe_bin=settings.SKYMARK_FFPROBE)
        path = out / "segment.mp4"
        seg = cut_segment(
            src,
            path,
            info=info,
            start_s=segment[0],
            end_s=segment[1],
            ffmpeg_bin=settings.SKYMARK_FFMPEG,
            ffprobe_bin=settings.SKYMARK_FFPROBE,
        )
    return path, seg.why


def _render(view: ModelView, report: Callable[[float], None]) -> dict[str, Any]:
    """Draw the pictures in memory and store them as they are (only a video segment, which ffmpeg
    cuts, goes through a temporary folder); returns the row's new field values. A failure deletes
    what this attempt stored."""
    plan = view_plan(view.item.provenance)
    if plan.image_id is None:
        raise media_tools.MediaError(f"item {view.item.uid}: its provenance names no marks to draw")
    image = SatelliteImage.objects.get(id=plan.image_id)
    prefix = f"{view_folder(view.item_id)}/{view.attempts}"
    base = image_base(image)  # this process may have it decoded already
    picture, options = draw_pictures(plan, base, crop=lettered_crop(plan, image), on_progress=report)
    report(0.5)
    stored: list[str] = []
    try:
        fields: dict[str, Any] = {"image": store_bytes(picture, f"{prefix}/view.jpg")}
        stored.append(fields["image"])
        fields["option_images"] = []
        for option, data in options:
            stored.append(store_bytes(data, f"{prefix}/option-{option}.jpg"))
            fields["option_images"].append({"option": option, "file": stored[-1]})
        if plan.segment is not None:
            with tempfile.TemporaryDirectory(prefix="skymark-view-") as tmp:
                path, why = _cut(view, plan.segment, Path(tmp))
                report(0.9)
                stored.append(store_path(path, f"{prefix}/segment.mp4"))
            fields["video"] = stored[-1]
            fields["video_note"] = why[:200]
    except Exception:
        delete_quietly(stored)
        raise
    segment = plan.segment
    fields["segment_start_s"], fields["segment_end_s"] = segment if segment else (None, None)
    return fields


def stored_names(view: ModelView) -> list[str]:
    names = [view.image.name, view.video.name, *(o["file"] for o in view.option_images)]
    return [n for n in names if n]


def model_view_files_delete(sender: Any, instance: ModelView, **kwargs: Any) -> None:
    """post_delete: the view's files go once the deletion commits, with its folder and what a killed
    run left there (no claim comes back to a deleted view to clean it)."""
    names, folder = stored_names(instance), view_folder(instance.item_id)

    def delete() -> None:
        delete_quietly(names)
        delete_tree_quietly(folder)

    transaction.on_commit(delete)


def _new_names(fields: dict[str, Any]) -> list[str]:
    names = [fields.get("image"), fields.get("video"), *(o["file"] for o in fields.get("option_images", []))]
    return [n for n in names if n]


def _finish(claim: str, drawn: dict[int, dict[str, Any]]) -> set[int]:
    """Point the rows of `drawn` (view id: its new field values) at their new files, those this
    claim still holds, in one transaction for all; the files of earlier renderings go
    once that commits. Returns the ids written. A row that went meanwhile (with its item) or that
    another worker took over keeps what it has, and the files drawn for it are deleted."""
    if not drawn:
        return set()
    try:
        with transaction.atomic():
            # One transaction for the batch (one write lock, one commit): the rows' old files, then
            # each row still held pointed at its new ones.
            held = ModelView.objects.select_for_update().filter(id__in=list(drawn), claim=claim, state=S.RUNNING)
            old = [name for view in held.only("id", "image", "video", "option_images") for name in stored_names(view)]
            now = timezone.now()
            written = {
                view_id
                for view_id, fields in drawn.items()
                if mine(view_id, claim).update(
                    **{"video": "", "video_note": "", **fields},
                    state=S.SUCCEEDED,
                    progress=100,
                    lease_until=None,
                    finished_at=now,
                    updated_at=now,
                )
            }
            kept = {name for fields in drawn.values() for name in _new_names(fields)}
            unused = [n for view_id, fields in drawn.items() if view_id not in written for n in _new_names(fields)]
            transaction.on_commit(lambda: delete_quietly([n for n in old if n not in kept] + unused))
    except Exception:
        delete_quietly([name for fields in drawn.values() for name in _new_names(fields)])
        raise
    return written


def _fail(view_id: int, claim: str, error: str) -> None:
    mine(view_id, claim).update(
        state=S.FAILED, error=error[:2000], lease_until=None, finished_at=timezone.now(), updated_at=timezone.now()
    )


def _draw_claimed(view: ModelView, claim: str) -> dict[str, Any] | None:
    """Render and store the files of a view this claim holds; the row's new values, or None when it
    did not render. Bad media ends in `failed` with the reason; other errors are recorded, then
    raised. A view whose item went (before or while it renders) ends quietly: None."""
    try:
        _leftovers_remove(view)
        return _render(view, _reporter(view.id, claim))
    except media_tools.MediaError as exc:
        _fail(view.id, claim, str(exc))
        return None
    except Exception as exc:
        if _gone(view.id):  # the item (and its marks' image, maybe) went while drawing
            return None
        log.exception("model view %s crashed", view.id)
        _fail(view.id, claim, f"internal error while rendering: {exc}")
        raise


def _render_claimed(view: ModelView, claim: str) -> bool:
    """Render a view this claim holds and point its row at the files: True when it did."""
    fields = _draw_claimed(view, claim)
    if fields is None:
        return False
    if not _finish(claim, {view.id: fields}):
        _gone(view.id)
        return False
    return True


def model_view_render(*, view_id: int) -> bool:
    """Render a model view unless it is done or a live worker renders it. True when it rendered now.
    Bad media ends in `failed` with the reason; other errors are recorded, then raised for the task
    to retry. A view whose item was deleted ends quietly: False, no retry."""
    claim = new_claim()
    view = view_claim_one(view_id=view_id, claim=claim)
    if view is None:
        _gone(view_id)
        return False
    with heartbeat(lambda: claim_renew(claim), name=f"model view {view_id}"):
        return _render_claimed(view, claim)


def _again_later(view: ModelView, claim: str) -> None:
    """A view that failed on something other than its media (storage, database) goes back to pending
    for another try, up to MAX_TRIES attempts; after that it stays `failed` with the error."""
    if view.attempts < MAX_TRIES:
        ModelView.objects.filter(id=view.id, claim=claim, state=S.FAILED).update(
            state=S.PENDING, claim="", error="", finished_at=None, updated_at=timezone.now()
        )


def _drain_batch(views: list[ModelView], claim: str) -> tuple[int, int]:
    """Render a claim's batch one view after the other, then finish the rendered ones together
    (also when a time limit stops the batch). Returns (rendered, not rendered)."""
    drawn: dict[int, dict[str, Any]] = {}
    failed = 0
    try:
        for view in views:
            try:
                fields = _draw_claimed(view, claim)
            except SoftTimeLimitExceeded:
                _again_later(view, claim)
                raise
            except Exception:  # recorded on the row by _draw_claimed; go on with the rest
                _again_later(view, claim)
                fields = None
            if fields is None:
                failed += 1
            else:
                drawn[view.id] = fields
    finally:
        written = _finish(claim, drawn)
    for view_id in set(drawn) - written:
        _gone(view_id)
    return len(written), failed + len(drawn) - len(written)


def model_views_drain(*, limit: int | None = None) -> tuple[int, int]:
    """Render pending views, a claim of a few at a time (each claim's rows written together once
    its views are drawn and stored), until none is left (or `limit` were taken). One failing view
    does not stop the others: bad media fail it with the reason, other errors send it back to
    pending (up to MAX_TRIES attempts). Returns (rendered, not rendered)."""
    claim = new_claim()
    rendered = failed = 0
    try:
        with heartbeat(lambda: claim_renew(claim), name=f"model views {claim[:8]}"):
            while limit is None or rendered + failed < limit:
                size = CLAIM_SIZE if limit is None else min(CLAIM_SIZE, limit - rendered - failed)
                views = views_claim_pending(claim=claim, limit=size)
                if not views:
                    break
                ok, not_ok = _drain_batch(views, claim)
                rendered += ok
                failed += not_ok
    finally:
        # What this claim took and did not get to (a time limit) is pending again at once.
        ModelView.objects.filter(claim=claim, state=S.RUNNING).update(
            state=S.PENDING, claim="", lease_until=None, updated_at=timezone.now()
        )
    return rendered, failed
