"""Decoded grey frames of a stretch of video, in the order a track walks them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import cv2

from ..errors import MediaError
from .tracker import Frame

# Backward tracking keeps the stretch in memory (a decoder cannot step back): about 2 MB a 1080p frame.
MAX_BACKWARD_FRAMES = 900


def _open(video: Path) -> cv2.VideoCapture:
    cap = cv2.VideoCapture(str(video))
    if not cap.isOpened():
        raise MediaError(f"{video.name}: the video cannot be decoded")
    return cap


def _times(cap: cv2.VideoCapture) -> Iterator[tuple[int, float, object]]:
    index = 0
    fps = cap.get(cv2.CAP_PROP_FPS) or 0.0
    while True:
        ok, bgr = cap.read()
        if not ok:
            return
        ms = cap.get(cv2.CAP_PROP_POS_MSEC)
        # Some containers report no timestamps; the frame rate gives them then.
        time_s = ms / 1000.0 if ms > 0 or index == 0 else (index / fps if fps else 0.0)
        yield index, time_s, bgr
        index += 1


def decode(video: Path, *, start_s: float, end_s: float, backward: bool = False) -> Iterator[Frame]:
    """Frames whose time lies in [start_s, end_s] as grey images, first to last, or last to first with
    `backward` (then at most MAX_BACKWARD_FRAMES, the latest ones, are held). The frame nearest
    `start_s` (`end_s` backward) is the first one given: tracking starts on the frame the user saw.
    Raises MediaError when the video cannot be read."""
    cap = _open(video)
    try:
        half = 0.5 / (cap.get(cv2.CAP_PROP_FPS) or 30.0)
        kept: list[Frame] = []
        for index, time_s, bgr in _times(cap):
            if time_s < start_s - half:
                continue
            if time_s > end_s + half:
                break
            frame = Frame(index, time_s, cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY))  # type: ignore[call-overload]
            if not backward:
                yield frame
                continue
            kept.append(frame)
            if len(kept) > MAX_BACKWARD_FRAMES:
                kept.pop(0)
        if backward:
            yield from reversed(kept)
    finally:
        cap.release()


def frame_count(video: Path, *, start_s: float, end_s: float) -> int:
    """How many frames `decode` gives for the stretch (from the container's rate; for progress only)."""
    cap = _open(video)
    try:
        fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
    finally:
        cap.release()
    return max(1, round((end_s - start_s) * fps) + 1)
