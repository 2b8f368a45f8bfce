"""The release build job: write every file of a release aside, move it into place only when
complete, then freeze the row. Idempotent (a frozen release is left alone); on failure the release
is `failed` with the reason and no file of it stays in storage.

While it runs the build holds a lease on the row (renewed by its progress and a background
heartbeat, annotator.processing.lease). A build whose worker vanished stays `building` with a lease
that runs out: workers send it again (releases_reclaim_lost), and an admin may retry or abandon it
(services). Each release writes in a scratch folder of its own, removed before every attempt and on
abandon, so what a killed build left (partial files, temporary frames) never outlives it."""

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
from django.db.models import Q
from django.utils import timezone

from annotator.processing.lease import heartbeat, lease_end, lease_live, private_tempdir
from annotator.storage import delete_tree_quietly, server_side_copy, store_tree
from review.models import Release

from .build import write_release

log = logging.getLogger(__name__)


def scratch_home(release_id: int) -> Path:
    """The folder every attempt of one release writes in: beside its final place when storage is a
    local disk (so moving it in is one rename), else in the temporary folder."""
    try:
        base = Path(default_storage.path("releases/.building"))
    except NotImplementedError:
        base = Path(tempfile.gettempdir()) / "skymark-releases"
    return base / f"r{release_id}"


def scratch_remove(*, release_id: int) -> None:
    """Remove what any attempt of this release left in its scratch folder."""
    shutil.rmtree(scratch_home(release_id), ignore_errors=True)


@contextmanager
def _scratch(release_id: int, version: str) -> Iterator[Path]:
    home = scratch_home(release_id)
    shutil.rmtree(home, ignore_errors=True)  # a killed attempt's files and temporary frames
    home.mkdir(parents=True, exist_ok=True)
    folder = home / f"{version}-{secrets.token_hex(4)}"
    folder.mkdir()
    try:
        # Temporary files of the build (frames, clips) go under the scratch folder too.
        with private_tempdir(home / "tmp"):
            yield folder
    finally:
        shutil.rmtree(home, ignore_errors=True)


def stored_on_disk(name: str) -> Path | None:
    """A stored file's path when storage is a local disk: the build hard-links it into the release
    (stored media are never rewritten in place, so a link shares nothing that changes)."""
    try:
        return Path(default_storage.path(name))
    except NotImplementedError:
        return None


def _claim(release_id: int) -> Release | None:
    """Take the build unless it is not building any more or a live worker holds it."""
    with transaction.atomic():
        release = Release.objects.select_for_update().get(id=release_id)
        if release.state != Release.State.BUILDING or lease_live(release.lease_until):
            return None
        if release.lease_until is not None:
            log.warning("release %s: its worker vanished; building it again", release.version)
        release.progress, release.error, release.lease_until = 0, "", lease_end()
        release.save(update_fields=["progress", "error", "lease_until"])
        return release


def _building(release_id: int):  # type: ignore[no-untyped-def]
    return Release.objects.filter(id=release_id, state=Release.State.BUILDING)


def release_run(*, release_id: int, progress: Callable[[float], None] | None = None) -> Release:
    """Build the files of a release in `building` state and freeze it. Running it again on a
    frozen release, or while a live worker builds it, does nothing. On failure the release is
    `failed` with the reason and no file of it stays in storage."""
    release = _claim(release_id)
    if release is None:
        return Release.objects.get(id=release_id)
    records = list(release.entries.order_by("uid").values_list("record", flat=True))
    prefix = f"releases/{release.version}"

    def report(fraction: float) -> None:
        _building(release_id).update(progress=int(95 * fraction), lease_until=lease_end())
        if progress:
            progress(fraction)

    meta = {"filters": release.filters, "changelog": release.changelog}
    try:
        with (
            heartbeat(lambda: _building(release_id).update(lease_until=lease_end()), name=f"release {release.version}"),
            _scratch(release_id, release.version) as folder,
        ):
            root = folder / "release"
            root.mkdir()
            copy = server_side_copy()
            later: dict[str, str] = {}  # path in the release -> stored name, copied by the storage
            manifest = write_release(
                root,
                version=release.version,
                records=records,
                sources=release.sources,
                meta=meta,
                open_media=lambda name: default_storage.open(name, "rb"),
                local_source=stored_on_disk,
                copy_later=(lambda name, path: later.__setitem__(path, name)) if copy else None,
                progress=report,
            )
            delete_tree_quietly(prefix)  # whatever an earlier, failed attempt left
            store_tree(root, prefix)
            for path, name in sorted(later.items()):
                assert copy is not None  # only a storage that copies on its side is left files
                copy(name, f"{prefix}/{path}")
        with transaction.atomic():
            frozen = _building(release_id).update(
                state=Release.State.FROZEN,
                progress=100,
                manifest=manifest,
                root=prefix,
                items_file=f"{prefix}/items.jsonl",
                manifest_file=f"{prefix}/manifest.json",
                frozen_at=timezone.now(),
                lease_until=None,
            )
        if not frozen:  # abandoned while this (lease-less) run went on: its files go too
            log.warning("release %s was abandoned during the build; its files are removed", release.version)
            delete_tree_quietly(prefix)
    except Exception as exc:
        log.exception("release %s failed", release.version)
        delete_tree_quietly(prefix)
        _building(release_id).update(
            state=Release.State.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000], lease_until=None
        )
        raise
    return Release.objects.get(id=release_id)


def releases_reclaim_lost() -> list[Release]:
    """The building releases whose lease ran out (their worker vanished), each taken by one caller
    even when several look at the same time; the caller sends them again."""
    taken = []
    # A build with progress but no lease was started before builds held leases and never finished.
    lost = Q(lease_until__lt=timezone.now()) | Q(lease_until__isnull=True, progress__gt=0)
    for release in Release.objects.filter(lost, state=Release.State.BUILDING):
        same = {"lease_until": release.lease_until, "progress": release.progress}
        if _building(release.id).filter(**same).update(lease_until=None, progress=0):
            log.warning("release %s: its worker stopped at %s%%; queued again", release.version, release.progress)
            taken.append(release)
    return taken
