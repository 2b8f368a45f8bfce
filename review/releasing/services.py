"""Releases: freeze approved items into a version (rows first, in one transaction), then build its
files in a job (jobs.py). A frozen release never changes (the database refuses it); a correction
is a new version with a changelog against the last frozen one."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from annotator.exceptions import Conflict
from annotator.models import Item, project_default_id
from annotator.processing.lease import lease_live
from annotator.storage import delete_tree_quietly
from review.models import Release, ReleaseItem, Review

from . import alignment, drawing, ordering, splits
from .formats import dumps
from .jobs import release_run, scratch_remove
from .records import ReleaseInputs, release_inputs
from .tasks import release_send

VERSION_RE = re.compile(r"^v?\d+(\.\d+){0,2}([-+][A-Za-z0-9.]+)?$")
# Fields of a record that say where it sits in this release, not what the item is.
PLACEMENT_FIELDS = ("split", "tiny")


def _approved(
    *,
    project_id: int,
    tasks: list[str] | None,
    scenes: list[int] | None,
    after: datetime | None,
    before: datetime | None,
) -> QuerySet[Item]:
    qs = Item.objects.filter(state=Item.State.APPROVED, scene__project_id=project_id)
    if tasks:
        qs = qs.filter(task__in=tasks)
    if scenes:
        qs = qs.filter(scene_id__in=scenes)
    # An approved item's last change is its approval (the lifecycle saves it then).
    if after:
        qs = qs.filter(updated_at__gte=after)
    if before:
        qs = qs.filter(updated_at__lt=before)
    return qs


def _content_hash(record: dict[str, Any], frames: dict[Any, dict[str, Any]]) -> str:
    # An item's with-CVAA placements are rows of its release's frame table: a new placement of its
    # keyframe changes the item even where its record (the boxes, the text) reads the same.
    content = {k: v for k, v in record.items() if k not in PLACEMENT_FIELDS}
    content["cvaa_frames"] = [row for row, _box in alignment.rows_of(record, frames)]
    return hashlib.sha256(dumps(content)).hexdigest()


def _changelog(parent: Release | None, records: list[dict[str, Any]], frames: list[dict[str, Any]]) -> dict[str, Any]:
    if parent is None:
        return {}
    table = alignment.frames_by_key(parent.sources.get("cvaa", {}).get("frames", []))
    before = {uid: _content_hash(record, table) for uid, record in parent.entries.values_list("uid", "record")}
    table = alignment.frames_by_key(frames)
    now = {r["id"]: _content_hash(r, table) for r in records}
    return {
        "since": parent.version,
        "added": sorted(set(now) - set(before)),
        "removed": sorted(set(before) - set(now)),
        "changed": sorted(uid for uid in set(now) & set(before) if now[uid] != before[uid]),
    }


def _place(records: list[dict[str, Any]], *, test_share: float) -> None:
    """Give every record its split and tiny membership (seeded, by scene group)."""
    split_items = splits.split_items(records)
    split = splits.train_test(split_items, test_share=test_share)
    tiny = splits.tiny(split_items, split)
    for r in records:
        r["split"], r["tiny"] = split[r["id"]], r["id"] in tiny


def _balance(
    inputs: ReleaseInputs, *, balance_yes_no: bool, test_share: float
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Apply the freeze's balance (ordering.py) to the inputs in place: records placed in splits,
    reordered or reworded, held-back items out (with their blind answers and model-view files), blind answers to
    reworded questions read the new way, lettered images to draw taken off the copy list. Returns
    what was held back and the satellite images lettered candidates are drawn on."""
    result = ordering.balance_release(
        inputs.records, balance_yes_no=balance_yes_no, place=lambda records: _place(records, test_share=test_share)
    )
    item_of = dict(zip((r["id"] for r in inputs.records), inputs.item_ids, strict=True))
    held = {h["id"] for h in result.held_back}
    for path in [p for p in inputs.media if p.startswith("media/items/")]:
        if path.split("/")[2] in held:
            del inputs.media[path]
    inputs.records = result.records
    inputs.item_ids = [item_of[r["id"]] for r in result.records]
    inputs.human = [
        {**h, "answer": ordering.flip_yes_no(h["answer"]) if h["id"] in result.reworded else h["answer"]}
        for h in inputs.human
        if h["id"] not in held
    ]
    images: dict[str, str] = {}
    for record in inputs.records:
        drawing.lettered_media(record, inputs.media)
        # lettered: its rotations are drawn even when its own view is copied
        drawn = drawing.is_lettered(record) or drawing.to_draw(record, inputs.media)
        image_id = drawing.drawn_on(record) if drawn else None
        if image_id in inputs.images:
            images[str(image_id)] = inputs.images[image_id]
    kept = {r["id"] for r in inputs.records}
    inputs.cut_from = {uid: name for uid, name in inputs.cut_from.items() if uid in kept}
    return result.held_back, images


def release_create(
    *,
    version: str,
    user: Any,
    tasks: list[str] | None = None,
    scenes: list[int] | None = None,
    approved_after: datetime | None = None,
    approved_before: datetime | None = None,
    balance_yes_no: bool = True,
    test_share: float | None = None,
    enqueue: bool = True,
    project_id: int | None = None,
) -> Release:
    """Freeze the approved items of one project (the default one unless named) that match the
    filters into `version` (state building) and queue its build (unless `enqueue` is False: the
    caller runs it). Keys are balanced over what is released (ordering.py); with `balance_yes_no`
    the surplus of each yes/no task's majority fact is held back and listed. `test_share`: the
    share of items the test split aims at (splits.TEST_SHARE unless given). Raises ValidationError
    (a bad or taken version, a share out of range, nothing to release) or Conflict (the same
    version is being built right now)."""
    version = version.strip()
    project_id = project_id or project_default_id()
    if not VERSION_RE.match(version):
        raise ValidationError({"version": "use a version like 1.0 or v1.2.0"})
    share = splits.TEST_SHARE if test_share is None else float(test_share)
    if not splits.MIN_TEST_SHARE <= share <= splits.MAX_TEST_SHARE:
        raise ValidationError(
            {"test_share": f"give a share between {splits.MIN_TEST_SHARE} and {splits.MAX_TEST_SHARE} (0.8 = 80% test)"}
        )
    existing = Release.objects.filter(version=version).first()
    if existing is not None and existing.state == Release.State.BUILDING:
        raise Conflict(f"release {version} is being built right now; wait for it to finish")
    if existing is not None:
        raise ValidationError({"version": f"release {version} exists; releases are immutable"})
    approved = _approved(
        project_id=project_id, tasks=tasks, scenes=scenes, after=approved_after, before=approved_before
    )
    inputs = release_inputs(approved)
    if not inputs.records:
        raise ValidationError({"version": "there are no approved items to release (with these filters)"})
    if inputs.not_ready:
        listed = ", ".join(inputs.not_ready[:10]) + (" ..." if len(inputs.not_ready) > 10 else "")
        raise ValidationError(
            {
                "version": f"{len(inputs.not_ready)} item(s) have a model view that failed to render ({listed}); "
                "render them again from the admin once their media are fixed"
            }
        )
    held_back, drawn_on = _balance(inputs, balance_yes_no=balance_yes_no, test_share=share)
    if not inputs.records:
        raise ValidationError(
            {
                "balance_yes_no": f"all {len(held_back)} item(s) would be held back to balance yes and no; "
                "approve items of the other answer, or release without yes/no balancing"
            }
        )
    to_draw = [r for r in inputs.records if drawing.to_draw(r, inputs.media)]
    undrawable = [r["id"] for r in to_draw if str(drawing.drawn_on(r)) not in drawn_on]
    if undrawable:
        listed = ", ".join(undrawable[:10])
        message = f"no model view yet and no marked satellite image to draw it on ({listed}); render them in the admin"
        raise ValidationError({"version": f"{len(undrawable)} item(s) have {message}"})
    # after the balance: the with-CVAA question follows the wording the release asks
    min_confidence = float(settings.SKYMARK_CVAA_PRIOR_MIN_CONFIDENCE)
    frames = alignment.priors_attach(inputs.records, inputs.item_ids, inputs.scene_of, min_confidence=min_confidence)
    frozen = Release.objects.filter(state=Release.State.FROZEN, project_id=project_id)
    parent = frozen.order_by("-frozen_at", "-id").first()
    rejections: dict[str, int] = {}
    released_scenes = sorted({inputs.scene_of[i] for i in inputs.item_ids})
    for reasons in Review.objects.filter(item__scene__in=released_scenes).values_list("reasons", flat=True):
        for reason in reasons:
            rejections[reason] = rejections.get(reason, 0) + 1
    filters = {
        "tasks": sorted(tasks or []),
        "scenes": sorted(scenes or []),
        "approved_after": approved_after.isoformat() if approved_after else None,
        "approved_before": approved_before.isoformat() if approved_before else None,
        "balance_yes_no": balance_yes_no,
    }
    sources = {
        "media": inputs.media,
        "georefs": {str(k): v for k, v in inputs.georefs.items()},
        "human": inputs.human,
        "scenes": inputs.scenes,
        "rejections": rejections,
        "held_back": held_back,
        "balance_yes_no": balance_yes_no,
        "drawn_on": drawn_on,
        "cut_from": inputs.cut_from,
        "splits": {"test_share": share},
        # the frame table the records' with-CVAA keyframes name, frozen once for the release
        "cvaa": {"min_confidence": min_confidence, "frames": frames},
    }
    try:
        with transaction.atomic():
            release = Release.objects.create(
                version=version,
                project_id=project_id,
                created_by=user,
                filters=filters,
                parent=parent,
                changelog=_changelog(parent, inputs.records, frames),
                sources=sources,
                item_count=len(inputs.records),
            )
            ReleaseItem.objects.bulk_create(
                (
                    ReleaseItem(
                        release=release, item_id=item_id, uid=r["id"], split=r["split"], in_tiny=r["tiny"], record=r
                    )
                    for item_id, r in zip(inputs.item_ids, inputs.records, strict=True)
                ),
                batch_size=2000,
            )
            if enqueue:
                release_id = release.id
                transaction.on_commit(lambda: release_send(release_id=release_id))
    except IntegrityError:
        raise Conflict(f"release {version} was started by someone else just now") from None
    return release


def release_build(*, version: str, user: Any, **filters: Any) -> Release:
    """Freeze and build in one go, here and now (commands, tests); pages and APIs queue the build."""
    release = release_create(version=version, user=user, enqueue=False, **filters)
    return release_run(release_id=release.id)


@transaction.atomic
def release_discard(*, release_id: int) -> None:
    """Remove a failed release (its version can then be used again). Frozen releases cannot go."""
    release = Release.objects.select_for_update().get(id=release_id)
    if release.state != Release.State.FAILED:
        raise Conflict(f"only failed releases can be discarded; {release.version} is {release.state}")
    ReleaseItem.objects.filter(release=release).delete()
    release.delete()


def _not_live(release: Release, action: str) -> None:
    """Refuse to touch a build a live worker holds (it renews its lease while it runs)."""
    if release.state == Release.State.FROZEN:
        raise Conflict(f"release {release.version} is frozen; releases are immutable")
    if release.state == Release.State.BUILDING and lease_live(release.lease_until):
        assert release.lease_until is not None
        left = int((release.lease_until - timezone.now()).total_seconds()) + 1
        raise Conflict(
            f"release {release.version} is being built by a live worker ({release.progress}%); it can be "
            f"{action} only if that worker stops (its lease runs out in {left} s)"
        )


@transaction.atomic
def release_retry(*, release_id: int) -> Release:
    """Build a stuck (its worker vanished) or failed release again from its frozen items: the
    scratch folder of the earlier attempt is removed and the build queued. Raises Conflict for a
    frozen release or one a live worker builds."""
    release = Release.objects.select_for_update().get(id=release_id)
    _not_live(release, "retried")
    scratch_remove(release_id=release.id)
    release.state, release.progress, release.error, release.lease_until = Release.State.BUILDING, 0, "", None
    release.save(update_fields=["state", "progress", "error", "lease_until"])
    transaction.on_commit(lambda: release_send(release_id=release_id))
    return release


@transaction.atomic
def release_abandon(*, release_id: int) -> str:
    """Give up a stuck or failed build: its scratch folder, any file it stored and its rows go, and
    the version can be used again. Raises Conflict for a frozen release or one a live worker
    builds. Returns the version."""
    release = Release.objects.select_for_update().get(id=release_id)
    _not_live(release, "abandoned")
    scratch_remove(release_id=release.id)
    delete_tree_quietly(f"releases/{release.version}")
    ReleaseItem.objects.filter(release=release).delete()
    release.delete()
    return release.version
