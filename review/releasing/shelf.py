"""A release's media stored by content: each distinct file once, at
`media/<sha256[:2]>/<sha256>.<ext>`, whatever records, scenes or rotations point at it (a video
shared by two scenes, a satellite image shared by many items, an option image a rotation shows
unchanged). Records are frozen with the build's own names for their media (where each comes from);
the build places the files and rewrites every record's paths to these (`relocate`).

A stored file on local disk is hard-linked, not copied, when the release is on the same file
system: sources are immutable (every job stores a new name and deletes the old one, nothing
rewrites a stored file in place) and so are releases, so sharing the inode costs nothing and
removing either leaves the other whole. On storage that copies on its own side (S3), a file no
format embeds (a video, a segment) is only hashed as it is read here, and the caller copies it
into the release on the server after the upload (`copy_later`), so its bytes are not written here
nor sent back. Otherwise (another file system, a picture a format embeds) the file is copied once,
hashed as it is copied. Deterministic: the paths follow the bytes only."""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

OpenMedia = Callable[[str], IO[bytes]]
LocalSource = Callable[[str], Path | None]
CopyLater = Callable[[str, str], None]  # (stored name, path in the release)
BLOCK = 1 << 20


@dataclass(frozen=True)
class Placed:
    path: str  # inside the release
    sha256: str
    size: int


def content_path(sha256: str, ext: str) -> str:
    return f"media/{sha256[:2]}/{sha256}.{ext}"


def _ext(name: str) -> str:
    tail = name.rsplit("/", 1)[-1]
    return tail.rsplit(".", 1)[-1].lower() if "." in tail else "bin"


def _hash_file(path: Path) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with path.open("rb") as fh:
        while block := fh.read(BLOCK):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


class Shelf:
    """Puts files into `root` by content. `local_source(name)`: the path of a stored file on this
    machine's disk when it may be linked (None: read it through `open_media`). `copy_later`: told
    each stored file the release holds but `root` does not (see the module's note)."""

    def __init__(
        self,
        root: Path,
        *,
        open_media: OpenMedia,
        local_source: LocalSource = lambda _n: None,
        copy_later: CopyLater | None = None,
    ):
        self.root, self.open_media, self.local_source = root, open_media, local_source
        self.copy_later = copy_later
        self.elsewhere: dict[str, str] = {}  # path in the release -> stored name, for files not in root
        self.by_sha: dict[str, Placed] = {}
        self.of_name: dict[str, Placed] = {}  # storage name -> where it went (each source read once)
        self.paths: dict[str, str] = {}  # the records' names -> paths in the release
        self.linked = 0

    def _keep(self, sha: str, size: int, ext: str, fill: Callable[[Path], None]) -> Placed:
        """The file with this content: the one placed already, or a new one that `fill` writes."""
        if sha in self.by_sha:
            return self.by_sha[sha]
        placed = Placed(content_path(sha, ext), sha, size)
        target = self.root / placed.path
        target.parent.mkdir(parents=True, exist_ok=True)
        fill(target)
        self.by_sha[sha] = placed
        return placed

    def _link_or_copy(self, src: Path, target: Path) -> None:
        try:
            os.link(src, target)
            self.linked += 1
        except OSError:  # another file system, or links not allowed there
            shutil.copyfile(src, target)

    def _from_storage(self, name: str, ext: str, *, embedded: bool) -> Placed:
        local = self.local_source(name)
        if local is not None:
            sha, size = _hash_file(local)
            return self._keep(sha, size, ext, lambda target: self._link_or_copy(local, target))
        if not embedded and self.copy_later is not None:
            return self._hashed_only(name, ext)
        # Read once: hashed while it is copied to a name of its own, then renamed to its content.
        incoming = self.root / "media" / f".incoming-{len(self.of_name)}"
        incoming.parent.mkdir(parents=True, exist_ok=True)
        digest, size = hashlib.sha256(), 0
        with self.open_media(name) as src, incoming.open("wb") as dst:
            while block := src.read(BLOCK):
                digest.update(block)
                size += len(block)
                dst.write(block)
        placed = self._keep(digest.hexdigest(), size, ext, lambda target: os.replace(incoming, target))
        incoming.unlink(missing_ok=True)  # the same bytes were placed already
        return placed

    def _hashed_only(self, name: str, ext: str) -> Placed:
        """A stored file placed by the storage's own copy: read to learn its content's name only."""
        digest, size = hashlib.sha256(), 0
        with self.open_media(name) as src:
            while block := src.read(BLOCK):
                digest.update(block)
                size += len(block)
        sha = digest.hexdigest()
        if sha in self.by_sha:
            return self.by_sha[sha]
        placed = Placed(content_path(sha, ext), sha, size)
        assert self.copy_later is not None
        self.copy_later(name, placed.path)
        self.elsewhere[placed.path] = name
        self.by_sha[sha] = placed
        return placed

    def put_stored(self, logical: str, name: str, *, embedded: bool = True) -> str:
        """Place the stored file `name` that records call `logical`; returns its path in the release.
        `embedded`: a format reads its bytes (a picture in the Parquet and the TSV), so it must be
        in `root` even where storage could copy it on its own side."""
        if name not in self.of_name:
            self.of_name[name] = self._from_storage(name, _ext(logical), embedded=embedded)
        self.paths[logical] = self.of_name[name].path
        return self.paths[logical]

    def put_local(self, logical: str, path: Path) -> str:
        """Move a file the build made (a drawn image) in; a copy of bytes placed already is dropped."""
        sha, size = _hash_file(path)
        placed = self._keep(sha, size, _ext(logical), lambda target: os.replace(path, target))
        path.unlink(missing_ok=True)
        self.paths[logical] = placed.path
        return placed.path

    def path(self, logical: str) -> str:
        """A record's name for a file -> its path in the release (a path already placed stays)."""
        return self.paths.get(logical, logical)

    def files(self) -> list[Placed]:
        return sorted(self.by_sha.values(), key=lambda p: p.path)


def relocate_media(media: dict[str, Any], path: Callable[[str], str]) -> dict[str, Any]:
    """A record's `media` with every file path mapped by `path` (segment times and the rest kept)."""
    out = dict(media)
    if "video" in out and isinstance(out["video"], str):
        out["video"] = path(out["video"])
    out["images"] = [path(p) for p in media.get("images", [])]
    out["option_images"] = [{**o, "image": path(o["image"])} for o in media.get("option_images", [])]
    return out
