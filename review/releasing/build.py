"""Writing a release into a local folder from its frozen records: every format, the variants, the
datasheet, the media (each distinct file once, by content: shelf.py), and a manifest with the
sha256 and size of every file. The database is read only for the satellite images' valid areas
that lettered drawings are cut to: the same records and media give the same bytes."""

from __future__ import annotations

import hashlib
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from . import datasheet, drawing, splits
from .formats import canonical, dumps, geo, tsv, variants, write_jsonl
from .shelf import CopyLater, LocalSource, Shelf, relocate_media

Progress = Callable[[float], None]
OpenMedia = Callable[[str], IO[bytes]]
BUILDER = "skymark-release/3"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _licenses(scenes: list[dict[str, Any]]) -> list[str]:
    by_license: dict[str, list[str]] = {}
    for s in scenes:
        key = s.get("license") or "not recorded"
        by_license.setdefault(key, []).append(s["name"])
    return [f"{lic}: {', '.join(sorted(names))}" for lic, names in sorted(by_license.items())]


def _place_media(
    root: Path, records: list[dict[str, Any]], sources: dict[str, Any], shelf: Shelf, progress: Progress
) -> list[dict[str, Any]]:
    """Every file the records (and their rotations) show, placed by content: stored ones linked or
    copied, lettered ones drawn first. Returns the records with the release's paths."""
    stored = sources.get("media", {})
    work = root / ".drawn"
    # Model views the freeze did not leave to copy: lettered anew, every lettered rotation, and the
    # views of items whose job had not run (the build draws them rather than wait for the queue).
    drawn = drawing.write(
        work,
        # a rotation of an item without letters shows the item's own pictures
        [*records, *(v for r in records if drawing.is_lettered(r) for v in variants.rotated(r))],
        copied=set(stored),
        images=sources.get("drawn_on", {}),
        open_media=shelf.open_media,
        local_source=shelf.local_source,
        cut_from=sources.get("cut_from", {}),
    )
    progress(0.3)
    # One order for all (the records' names), so the same bytes always land under the same name.
    names = sorted({*stored, *drawn})
    # Videos and segments are the only stored media no format reads back (pictures go into the
    # Parquet and the TSV), so only they may be left to the storage's own copy.
    clips = {r["media"].get("video") for r in records}
    for n, name in enumerate(names, 1):
        if name in stored:
            shelf.put_stored(name, stored[name], embedded=name not in clips)
        else:
            shelf.put_local(name, work / name)
        if n % 500 == 0:
            progress(0.3 + 0.3 * n / len(names))
    shutil.rmtree(work, ignore_errors=True)
    return [{**r, "media": relocate_media(r["media"], shelf.path)} for r in records]


def write_release(
    root: Path,
    *,
    version: str,
    records: list[dict[str, Any]],
    sources: dict[str, Any],
    meta: dict[str, Any],
    open_media: OpenMedia,
    local_source: LocalSource = lambda _name: None,
    copy_later: CopyLater | None = None,
    progress: Progress = lambda _f: None,
) -> dict[str, Any]:
    """Write everything under `root` (which must be empty) and return the manifest (also written
    as manifest.json, the only file the manifest does not list). `local_source(name)`: a stored
    file's path on this disk when it may be hard-linked into the release (else it is copied).
    `copy_later(name, path)`: where storage copies on its own side, the stored videos the release
    holds at `path` but `root` does not; the caller copies them there after uploading `root`."""
    shelf = Shelf(root, open_media=open_media, local_source=local_source, copy_later=copy_later)
    records = _place_media(root, sorted(records, key=lambda r: r["id"]), sources, shelf, progress)

    def read_media(path: str) -> bytes:
        """For formats that embed images (Parquet, TSV): the placed file."""
        if path in shelf.elsewhere:  # the same bytes as a clip left to the storage's copy
            with open_media(shelf.elsewhere[path]) as fh:
                return fh.read()
        return (root / path).read_bytes()

    licenses = _licenses(sources.get("scenes", []))
    files = canonical.write(
        root, version=version, records=records, licenses=licenses, read_media=read_media, cvaa=sources.get("cvaa")
    )
    tsv_dir = root / "vlmevalkit"
    files.append(tsv.write(tsv_dir / f"skymark-{version}.tsv", records, read_media))
    files.append(tsv.write(tsv_dir / f"skymark-{version}-tiny.tsv", [r for r in records if r["tiny"]], read_media))
    files += variants.write(root, records, media_path=shelf.path)
    files += geo.write(root, records, sources.get("georefs", {}))
    human = sorted(sources.get("human", []), key=lambda h: (h["id"], h["reviewer"]))
    files.append(write_jsonl(root / "human_answers.jsonl", human))
    progress(0.75)
    files += datasheet.write(root, version=version, records=records, sources=sources)
    progress(0.9)
    listed = [
        {"path": p.relative_to(root).as_posix(), "sha256": _sha256(p), "bytes": p.stat().st_size} for p in set(files)
    ]
    listed += [{"path": m.path, "sha256": m.sha256, "bytes": m.size} for m in shelf.files()]
    manifest = {
        "version": version,
        "builder": BUILDER,
        "items": len(records),
        "tasks": dict(sorted(Counter(r["task"] for r in records).items())),
        "dimensions": dict(sorted(Counter(r["dimension"] for r in records).items())),
        "splits": {
            "full": len(records),
            "test": sum(r["split"] == "test" for r in records),
            "train": sum(r["split"] == "train" for r in records),
            "tiny": sum(bool(r["tiny"]) for r in records),
        },
        "yes_no_answers": dict(sorted(Counter(r["answer"] for r in records if r["answer_format"] == "yes_no").items())),
        "held_back": sorted(sources.get("held_back", []), key=lambda h: h["id"]),
        # the with-CVAA variant (alignment.py): its threshold and how many items have a prior
        "cvaa": {
            "min_confidence": sources.get("cvaa", {}).get("min_confidence"),
            "items": dict(sorted(Counter((r.get("cvaa") or {}).get("status", "none") for r in records).items())),
        },
        **splits.report(records, test_share=sources.get("splits", {}).get("test_share", splits.TEST_SHARE)),
        **meta,
        "files": sorted({f["path"]: f for f in listed}.values(), key=lambda f: str(f["path"])),
    }
    (root / "manifest.json").write_bytes(dumps(manifest) + b"\n")
    progress(1.0)
    return manifest
