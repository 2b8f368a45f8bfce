"""The release build job: write every file of a release aside, move it into place only when
complete, then freeze the row. Idempotent (a frozen release is left alone); on failure the release
is `failed` with the reason and no file of it stays in storage."""

from __future__ import annotations

import logging
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone

from annotator.storage import delete_tree_quietly, store_tree
from review.models import Release

from .build import write_release

log = logging.getLogger(__name__)


@contextmanager
def _scratch(version: str) -> Iterator[Path]:
    """A folder to write the release into, beside its final place when storage is a local disk
    (so moving it in is one rename), else in the temporary folder."""
    try:
        base: Path | None = Path(default_storage.path("releases/.building"))
    except NotImplementedError:
        base = None
    if base is not None:
        base.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=f"{version}-{secrets.token_hex(4)}-", dir=base))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def release_run(*, release_id: int, progress: Callable[[float], None] | None = None) -> Release:
    """Build the files of a release in `building` state and freeze it. Running it again on a
    frozen release does nothing. On failure the release is `failed` with the reason and no file of
    it stays in storage."""
    release = Release.objects.get(id=release_id)
    if release.state != Release.State.BUILDING:
        return release
    records = [e.record for e in release.entries.order_by("uid")]
    prefix = f"releases/{release.version}"

    def report(fraction: float) -> None:
        Release.objects.filter(id=release_id, state=Release.State.BUILDING).update(progress=int(95 * fraction))
        if progress:
            progress(fraction)

    meta = {"filters": release.filters, "changelog": release.changelog}
    try:
        with _scratch(release.version) as folder:
            root = folder / "release"
            root.mkdir()
            manifest = write_release(
                root,
                version=release.version,
                records=records,
                sources=release.sources,
                meta=meta,
                open_media=lambda name: default_storage.open(name, "rb"),
                progress=report,
            )
            delete_tree_quietly(prefix)  # whatever an earlier, failed attempt left
            store_tree(root, prefix)
        with transaction.atomic():
            Release.objects.filter(id=release_id).update(
                state=Release.State.FROZEN,
                progress=100,
                manifest=manifest,
                root=prefix,
                items_file=f"{prefix}/items.jsonl",
                manifest_file=f"{prefix}/manifest.json",
                frozen_at=timezone.now(),
            )
    except Exception as exc:
        log.exception("release %s failed", release.version)
        delete_tree_quietly(prefix)
        Release.objects.filter(id=release_id).update(
            state=Release.State.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000]
        )
        raise
    return Release.objects.get(id=release_id)
