"""Freeze approved items into an immutable, versioned release with a sha256 manifest."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from typing import Any

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction

from annotator.compiling.catalog import TASK_DIMENSION
from annotator.models import Item
from annotator.storage import delete_quietly
from review.models import Release

VERSION_RE = re.compile(r"^v?\d+(\.\d+){0,2}([-+][A-Za-z0-9.]+)?$")


def item_record(item: Item) -> dict[str, Any]:
    """The frozen form of an item: everything a model needs, plus where it came from."""
    video = item.scene.video
    return {
        "id": item.uid,
        "task": item.task,
        "dimension": TASK_DIMENSION[item.task],
        "question": item.question,
        "options": item.options,
        "answer": item.answer,
        "answer_format": item.answer_format,
        "scene": item.scene.name,
        "video": {"name": video.original_name, "sha256": video.sha256, "duration_s": video.duration_s},
        "satellite_images": [
            {"name": s.original_name, "sha256": s.sha256, "width": s.width, "height": s.height, "corners": s.corners}
            for s in sorted(item.scene.satellite_images.all(), key=lambda s: s.id)
        ],
        "provenance": item.provenance,
    }


def _dumps(obj: Any) -> bytes:
    return (json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))).encode()


def release_contents(items: list[Item], version: str) -> tuple[bytes, dict[str, Any]]:
    """Build the JSONL and the manifest. Pure: same items and version give the same bytes."""
    lines = b"".join(_dumps(item_record(i)) + b"\n" for i in sorted(items, key=lambda i: i.id))
    answers = Counter(i.answer for i in items if i.answer_format == Item.AnswerFormat.YES_NO)
    manifest = {
        "version": version,
        "items": len(items),
        "tasks": dict(sorted(Counter(i.task for i in items).items())),
        "yes_no_answers": dict(sorted(answers.items())),
        "files": [{"path": "items.jsonl", "sha256": hashlib.sha256(lines).hexdigest(), "bytes": len(lines)}],
    }
    return lines, manifest


def release_build(*, version: str, user: Any) -> Release:
    """Freeze every approved item into release `version`. Raises ValidationError for a taken
    or malformed version or an empty release; leaves no file behind on failure."""
    version = version.strip()
    if not VERSION_RE.match(version):
        raise ValidationError({"version": "use a version like 1.0 or v1.2.0"})
    if Release.objects.filter(version=version).exists():
        raise ValidationError({"version": f"release {version} exists; releases are immutable"})
    items = list(
        Item.objects.filter(state=Item.State.APPROVED)
        .select_related("scene__video")
        .prefetch_related("scene__satellite_images")
    )
    if not items:
        raise ValidationError({"version": "there are no approved items to release"})
    lines, manifest = release_contents(items, version)
    stored: list[str] = []
    try:
        with transaction.atomic():
            base = f"releases/{version}"
            stored.append(default_storage.save(f"{base}/items.jsonl", ContentFile(lines)))
            stored.append(default_storage.save(f"{base}/manifest.json", ContentFile(_dumps(manifest) + b"\n")))
            release = Release.objects.create(
                version=version,
                created_by=user,
                manifest=manifest,
                items_file=stored[0],
                manifest_file=stored[1],
                item_count=len(items),
            )
            release.items.set(items)
            return release
    except Exception:
        delete_quietly(stored)
        raise
