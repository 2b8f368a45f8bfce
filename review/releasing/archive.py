"""A release as one zip, streamed: entries are read from storage and written through a small
buffer that is handed to the response piece by piece, so neither the archive nor a video is ever
whole in memory. Media are stored (already compressed), text is deflated."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from typing import IO, Any

from django.core.files.storage import default_storage

STORED_SUFFIXES = (".mp4", ".mov", ".mkv", ".webm", ".png", ".jpg", ".jpeg", ".tif", ".tiff")
CHUNK = 1 << 20
# A fixed time for every entry: the same release gives the same archive bytes.
ENTRY_TIME = (2000, 1, 1, 0, 0, 0)


class _Sink:
    """A write-only file object that collects bytes for the generator to yield."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.offset = 0

    def write(self, data: bytes) -> int:
        self.parts.append(bytes(data))
        self.offset += len(data)
        return len(data)

    def tell(self) -> int:
        return self.offset

    def flush(self) -> None:
        return None

    def take(self) -> bytes:
        data, self.parts = b"".join(self.parts), []
        return data


def _copy(src: IO[bytes], dst: IO[bytes], sink: _Sink) -> Iterator[bytes]:
    while block := src.read(CHUNK):
        dst.write(block)
        yield sink.take()


def stream_zip(root: str, folder: str, files: list[dict[str, Any]]) -> Iterator[bytes]:
    """Yield the bytes of a zip holding `files` (manifest entries) under `folder/`, plus manifest.json."""
    sink = _Sink()
    with zipfile.ZipFile(sink, "w", allowZip64=True) as archive:  # type: ignore[call-overload]
        for path in [*(f["path"] for f in files), "manifest.json"]:
            info = zipfile.ZipInfo(f"{folder}/{path}", date_time=ENTRY_TIME)
            compressed = not path.lower().endswith(STORED_SUFFIXES)
            info.compress_type = zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED
            with default_storage.open(f"{root}/{path}", "rb") as src, archive.open(info, "w", force_zip64=True) as dst:
                yield from _copy(src, dst, sink)
            yield sink.take()
    yield sink.take()
