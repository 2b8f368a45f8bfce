"""An admin building the release, and its canonical JSONL read back from the built files."""

from __future__ import annotations

import json
from typing import Any

from django.core.files.storage import default_storage

from review.releasing.services import release_build


def release(*, admin: Any, version: str = "1.0") -> list[dict[str, Any]]:
    """Freeze and build the release; its canonical JSONL as the files hold it."""
    built = release_build(version=version, user=admin)
    with default_storage.open(built.items_file, "rb") as fh:
        return [json.loads(line) for line in fh.read().decode().splitlines() if line.strip()]
