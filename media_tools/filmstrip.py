"""Scrubbing previews: a sprite sheet of keyframes with a WebVTT thumbnails track, and a poster."""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from .errors import MediaError

# JPEG stores each side in 16 bits; a taller sheet cannot be written, so long videos get more columns.
MAX_JPEG_SIDE = 65_500


@dataclass(frozen=True)
class FilmstripInfo:
    count: int
    columns: int
    rows: int
    thumb_width: int
    thumb_height: int


def _vtt_time(seconds: float) -> str:
    """HH:MM:SS.mmm, as WebVTT requires (hours always present, so players never misread minutes)."""
    ms = round(max(0.0, seconds) * 1000)
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    return f"{hours:02d}:{minutes:02d}:{rest // 1000:02d}.{rest % 1000:03d}"


def _partial(dst: Path) -> Path:
    return dst.with_name(f".{dst.name}.partial{dst.suffix}")


@contextlib.contextmanager
def _atomic(*targets: Path) -> Iterator[list[Path]]:
    """Yield hidden temporary paths beside `targets`; rename them all into place only when the block
    succeeds, and delete them whatever happens, so a failure leaves none of the targets behind."""
    partials = [_partial(t) for t in targets]
    try:
        yield partials
        for partial, target in zip(partials, targets, strict=True):
            os.replace(partial, target)
    finally:
        for partial in partials:
            with contextlib.suppress(FileNotFoundError):
                partial.unlink()


def _open(path: Path, size: tuple[int, int] | None = None) -> Image.Image:
    """An RGB picture of a frame. With `size`, a JPEG is decoded at the smallest DCT scale still at
    least that big (1/2, 1/4, 1/8): a 1080p keyframe for a 160 px thumbnail decodes 16x fewer pixels."""
    try:
        img = Image.open(path)
        if size:
            img.draft("RGB", size)
        return img.convert("RGB")
    except (UnidentifiedImageError, OSError) as exc:
        raise MediaError(f"{path.name}: not a readable frame ({exc})") from exc


def _layout(path: Path, count: int, columns: int, thumb_width: int, thumb_height: int) -> tuple[int, int]:
    """(columns, rows) of the sheet: as asked, widened when the rows would pass the JPEG limit."""
    columns = min(columns, count)
    rows_fit = MAX_JPEG_SIDE // thumb_height
    columns = max(columns, math.ceil(count / rows_fit))
    if columns * thumb_width > MAX_JPEG_SIDE:
        raise MediaError(f"{path.name}: {count} thumbnails do not fit in one JPEG sprite; sample fewer keyframes")
    return columns, math.ceil(count / columns)


def _cues(ordered: Sequence[tuple[Path, float]], duration_s: float, cells: list[str]) -> str:
    """Cue i covers [t_i, t_{i+1}), the last one up to the end of the video."""
    lines = ["WEBVTT", ""]
    for i, ((_, start), cell) in enumerate(zip(ordered, cells, strict=True)):
        end = ordered[i + 1][1] if i + 1 < len(ordered) else max(duration_s, start + 0.001)
        lines += [f"{_vtt_time(start)} --> {_vtt_time(end)}", cell, ""]
    return "\n".join(lines)


def build_filmstrip(
    frames: Sequence[tuple[Path, float]],
    *,
    duration_s: float,
    sprite_path: Path,
    vtt_path: Path,
    thumb_width: int = 160,
    columns: int = 10,
    sprite_url: str = "filmstrip.jpg",
) -> FilmstripInfo:
    """One JPEG sprite of all frames (in time order, `columns` per row) and a WebVTT thumbnails track
    whose cue i covers [t_i, t_{i+1}) (the last one up to `duration_s`) and points at its cell with
    `sprite_url#xywh=x,y,w,h`. Both files appear together or not at all."""
    if thumb_width <= 0 or columns <= 0:
        raise ValueError("thumb_width and columns must be positive")
    if not frames:
        raise MediaError(f"{sprite_path.name}: no keyframes to build a filmstrip from")
    ordered = sorted(frames, key=lambda f: f[1])
    with _open(ordered[0][0]) as first:
        thumb_height = max(2, round(first.height * thumb_width / first.width))
    columns, rows = _layout(sprite_path, len(ordered), columns, thumb_width, thumb_height)
    sheet = Image.new("RGB", (columns * thumb_width, rows * thumb_height))
    cells = []
    for i, (path, _) in enumerate(ordered):
        x, y = (i % columns) * thumb_width, (i // columns) * thumb_height
        with _open(path, (thumb_width, thumb_height)) as frame:
            sheet.paste(frame.resize((thumb_width, thumb_height), Image.Resampling.LANCZOS), (x, y))
        cells.append(f"{sprite_url}#xywh={x},{y},{thumb_width},{thumb_height}")
    with _atomic(sprite_path, vtt_path) as (sprite_partial, vtt_partial):
        sheet.save(sprite_partial, "JPEG", quality=82, optimize=True)
        vtt_partial.write_text(_cues(ordered, duration_s, cells), encoding="utf-8")
    return FilmstripInfo(len(ordered), columns, rows, thumb_width, thumb_height)


def make_poster(frame: Path, out: Path, *, max_width: int = 1280) -> tuple[int, int]:
    """A JPEG poster from a frame, no wider than `max_width` (never enlarged). Returns its size."""
    with _open(frame, (max_width, 1)) as img:
        if img.width > max_width:
            img = img.resize((max_width, round(img.height * max_width / img.width)), Image.Resampling.LANCZOS)
        with _atomic(out) as (partial,):
            img.save(partial, "JPEG", quality=85, optimize=True)
        return img.size
