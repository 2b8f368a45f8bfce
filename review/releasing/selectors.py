"""Reads of releases (admins only; the pages and APIs check the role)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.core.files.storage import default_storage
from django.db.models import QuerySet
from django.http import Http404

from annotator.access.scopes import in_member_projects
from review.models import Release


def releases_list(*, user: Any) -> QuerySet[Release]:
    """The releases of the user's projects, newest first."""
    qs = Release.objects.select_related("created_by", "project").order_by("-id")
    return in_member_projects(user=user, qs=qs, path="project")


def release_get(*, version: str, user: Any) -> Release:
    """A release of one of the user's projects; 404 for the rest."""
    release = releases_list(user=user).filter(version=version).first()
    if release is None:
        raise Http404(f"no release {version}")
    return release


def release_find(*, version: str) -> Release | None:
    return Release.objects.filter(version=version).first()


def release_versions() -> list[str]:
    return list(Release.objects.order_by("id").values_list("version", flat=True))


@dataclass
class ReleaseRecords:
    """What scoring reads from a frozen release: its items, the rotated copies of its
    multiple-choice items (circular variant) and reviewers' blind answers (human baseline)."""

    items: list[dict[str, Any]]
    variants: list[dict[str, Any]] = field(default_factory=list)
    human: dict[str, list[Any]] = field(default_factory=dict)


def _read_jsonl(name: str) -> list[dict[str, Any]]:
    with default_storage.open(name, "rb") as fh:
        return [json.loads(line) for line in fh.read().decode().splitlines() if line.strip()]


def release_records(release: Release) -> ReleaseRecords:
    """Read from the frozen files, not from rows: a score is about what was released."""
    records = ReleaseRecords(items=_read_jsonl(release.items_file))
    files = {f["path"] for f in release.manifest.get("files", [])}
    base = release.items_file.rsplit("/", 1)[0]
    if "variants/circular.jsonl" in files:
        records.variants = _read_jsonl(f"{base}/variants/circular.jsonl")
    if "human_answers.jsonl" in files:
        for row in _read_jsonl(f"{base}/human_answers.jsonl"):
            records.human.setdefault(row["id"], []).append(row["answer"])
    return records
