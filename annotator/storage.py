"""Moving files between local paths and Django's storage (local folder or S3).

Media code works on local paths (ffmpeg needs them); everything persistent goes through the
storage API so the same code runs against MinIO/S3.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from django.core.files import File
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import models, transaction


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def store_path(src: Path, name: str) -> str:
    """Save a local file under `name` (storage may pick a free variant); returns the stored name."""
    with src.open("rb") as fh:
        return default_storage.save(name, File(fh, name=src.name))


def store_bytes(data: bytes, name: str) -> str:
    """Save bytes made in memory under `name` (storage may pick a free variant); the stored name."""
    return default_storage.save(name, ContentFile(data, name=Path(name).name))


def delete_quietly(names: list[str]) -> None:
    """Best-effort cleanup of files written by a step that then failed."""
    for name in names:
        with suppress(OSError):
            default_storage.delete(name)


@contextmanager
def local_copy(name: str) -> Iterator[Path]:
    """A local path for a stored file: the file itself on disk storage, else a temp download."""
    try:
        on_disk: Path | None = Path(default_storage.path(name))
    except NotImplementedError:
        on_disk = None
    if on_disk is not None:
        yield on_disk
        return
    suffix = Path(name).suffix
    with tempfile.TemporaryDirectory(prefix="skymark-") as tmp:
        target = Path(tmp) / f"source{suffix}"
        with default_storage.open(name, "rb") as src, target.open("wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        yield target


def store_tree(folder: Path, prefix: str, *, on_progress: Callable[[float], None] | None = None) -> int:
    """Copy every file under `folder` to storage under `prefix`, keeping relative paths exactly
    (tile URLs are computed, so the storage must not pick other names). Returns the file count.
    Raises FileExistsError when a name is taken; what was stored until then stays for the caller,
    who removes the prefix."""
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    try:
        root: Path | None = Path(default_storage.path(prefix))
    except NotImplementedError:
        root = None
    if root is not None:
        # Local disk: one rename of the finished folder instead of thousands of copies.
        root.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(folder), str(root))
        if on_progress:
            on_progress(1.0)
        return len(files)
    for n, path in enumerate(files, 1):
        name = f"{prefix}/{path.relative_to(folder).as_posix()}"
        with path.open("rb") as fh:
            stored = default_storage.save(name, File(fh, name=path.name))
        if stored != name:  # the name was taken and storage picked another: nothing would find it
            delete_quietly([stored])
            raise FileExistsError(f"{name}: already in storage; the folder {prefix} was not empty")
        if on_progress and (n % 200 == 0 or n == len(files)):
            on_progress(n / len(files))
    return len(files)


def server_side_copy() -> Callable[[str, str], None] | None:
    """`copy(source, target)` between two stored names when storage copies on its own side (S3's
    CopyObject), else None: on a local disk a release hard-links instead (releasing/shelf.py)."""
    return getattr(default_storage, "copy_within", None)


def delete_tree_quietly(prefix: str) -> None:
    """Remove everything stored under `prefix` (a tile pyramid), best effort."""
    if not prefix:
        return
    try:
        root: Path | None = Path(default_storage.path(prefix))
    except NotImplementedError:
        root = None
    if root is not None:
        shutil.rmtree(root, ignore_errors=True)
        return
    pending = [prefix]
    while pending:
        current = pending.pop()
        with suppress(OSError):
            dirs, files = default_storage.listdir(current)
            pending.extend(f"{current}/{d}" for d in dirs)
            delete_quietly([f"{current}/{f}" for f in files])


def file_fields_replace(*, model: type[models.Model], pk: int, changes: dict[str, str], stored: list[str]) -> None:
    """Point a row's file fields at newly stored files (`stored`), then delete the files they
    replace once the change is committed, so a reader never meets a row pointing at nothing."""
    with transaction.atomic():
        current = model.objects.select_for_update().get(pk=pk)  # type: ignore[attr-defined]
        old = [getattr(current, f).name for f in changes if getattr(current, f).name]
        model.objects.filter(pk=pk).update(**changes)  # type: ignore[attr-defined]
        transaction.on_commit(lambda: delete_quietly([n for n in old if n not in stored]))
