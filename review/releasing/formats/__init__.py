"""The files of a release, each written from the frozen records by one module; every writer is
deterministic (sorted keys, fixed order, no clocks), so building the same release twice gives
byte-identical files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def dumps(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(dumps(r) + b"\n" for r in rows))
    return path


def write_text(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
