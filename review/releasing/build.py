"""Writing a release into a local folder from its frozen records: every format, the variants, the
datasheet, the media, and a manifest with the sha256 and size of every file. No database access:
the same records and media give the same bytes."""

from __future__ import annotations

import hashlib
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from . import datasheet, drawing, splits
from .formats import canonical, dumps, geo, tsv, variants, write_jsonl

Progress = Callable[[float], None]
OpenMedia = Callable[[str], IO[bytes]]
BUILDER = "skymark-release/2"


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


def write_release(
    root: Path,
    *,
    version: str,
    records: list[dict[str, Any]],
    sources: dict[str, Any],
    meta: dict[str, Any],
    open_media: OpenMedia,
    progress: Progress = lambda _f: None,
) -> dict[str, Any]:
    """Write everything under `root` (which must be empty) and return the manifest (also written
    as manifest.json, the only file the manifest does not list)."""
    records = sorted(records, key=lambda r: r["id"])
    stored = sources.get("media", {})
    # Lettered images the freeze did not leave to copy: reordered items and every rotation.
    files = drawing.write(
        root,
        [*records, *(v for r in records for v in variants.rotated(r))],
        copied=set(stored),
        images=sources.get("drawn_on", {}),
        open_media=open_media,
    )

    def read_media(path: str) -> bytes:
        """For formats that embed images (Parquet, TSV): a copied file from storage, a drawn one
        from the release folder."""
        if path not in stored:
            return (root / path).read_bytes()
        with open_media(stored[path]) as fh:
            return fh.read()

    licenses = _licenses(sources.get("scenes", []))
    files += canonical.write(root, version=version, records=records, licenses=licenses, read_media=read_media)
    tsv_dir = root / "vlmevalkit"
    files.append(tsv.write(tsv_dir / f"skymark-{version}.tsv", records, read_media))
    files.append(tsv.write(tsv_dir / f"skymark-{version}-tiny.tsv", [r for r in records if r["tiny"]], read_media))
    files += variants.write(root, records)
    files += geo.write(root, records, sources.get("georefs", {}))
    human = sorted(sources.get("human", []), key=lambda h: (h["id"], h["reviewer"]))
    files.append(write_jsonl(root / "human_answers.jsonl", human))
    progress(0.15)
    files += datasheet.write(root, version=version, records=records, sources=sources)
    progress(0.3)
    media = sorted(sources.get("media", {}).items())
    for n, (path, stored) in enumerate(media, 1):
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        with open_media(stored) as src, target.open("wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        files.append(target)
        progress(0.3 + 0.6 * n / len(media))
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
        **splits.report(records, test_share=sources.get("splits", {}).get("test_share", splits.TEST_SHARE)),
        **meta,
        "files": [
            {"path": p.relative_to(root).as_posix(), "sha256": _sha256(p), "bytes": p.stat().st_size}
            for p in sorted(set(files), key=lambda p: p.relative_to(root).as_posix())
        ],
    }
    (root / "manifest.json").write_bytes(dumps(manifest) + b"\n")
    progress(1.0)
    return manifest
