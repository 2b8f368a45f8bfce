"""Browser-safe video: decide whether the original plays in browsers, else make an H.264 proxy."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import ffmpeg

from .errors import MediaError
from .ffmpeg_run import FfmpegError, require_file, run
from .probe import VideoInfo

# What every current browser decodes, by container family (ffprobe's format_name lists the family).
# MP4/MOV carry H.264, VP9 and AV1; Matroska and WebM share a demuxer, and only WebM's own codecs
# play from it (Safari and Firefox refuse H.264 in Matroska).
_MP4_CODECS = {"h264", "vp9", "av1"}
_WEBM_CODECS = {"vp8", "vp9", "av1"}
# 4:2:0 at 8 bits; yuvj420p is its full-range twin, as GoPro and phones write it, and browsers play it.
BROWSER_PIXEL_FORMATS = {"yuv420p", "yuvj420p"}
_CODEC_NAMES = {"mpeg4": "mpeg4 (Part 2)", "hevc": "hevc (H.265)", "msmpeg4v3": "msmpeg4v3 (DivX 3)"}
_OUT_TIME = re.compile(r"^out_time_us=(\d+)$")


def _family(container: str) -> str | None:
    names = container.split(",")
    if "mp4" in names or "mov" in names:
        return "mp4"
    if "webm" in names:
        return "webm"
    return None


def proxy_reason(info: VideoInfo) -> str | None:
    """Why the original cannot be served to a browser as is, or None when it can."""
    family = _family(info.container)
    playable = _MP4_CODECS if family == "mp4" else _WEBM_CODECS
    if info.codec not in _MP4_CODECS | _WEBM_CODECS:
        return f"{_CODEC_NAMES.get(info.codec, info.codec)} video does not play in all browsers"
    if family is None:
        return f"the {info.container} container does not play in browsers"
    if info.codec not in playable:
        return f"{info.codec} in Matroska does not play in all browsers"
    if info.pixel_format not in BROWSER_PIXEL_FORMATS:
        return f"pixel format {info.pixel_format} does not play in all browsers"
    if info.rotation:
        # Browsers honour the display matrix inconsistently; pixels drawn upright are unambiguous.
        return f"rotation {info.rotation}° must be applied to the pixels"
    if info.is_vfr:
        return "variable frame rate: frame stepping in a browser needs evenly spaced frames"
    return None


def _height(info: VideoInfo, max_height: int) -> int:
    # ffmpeg turns the picture by its display matrix before the filter graph (autorotate), so the
    # graph sees the displayed size. Never enlarge; H.264 4:2:0 needs even sides (-2 keeps the aspect).
    height = min(max_height, info.display_height or info.height)
    return max(2, height - height % 2)


def _rate(fps: float) -> str:
    # The exact rational (30000/1001, not 29.970030), so frame i of the proxy sits at i / fps.
    return str(Fraction(fps).limit_denominator(1001))


def _graph(src: Path, partial: Path, info: VideoInfo, max_height: int) -> Any:
    source = ffmpeg.input(str(src))
    # "V": the first real video stream, never cover art; the first audio stream when there is one.
    video = source["V:0"].filter("scale", -2, _height(info, max_height), flags="lanczos").filter("format", "yuv420p")
    options = {
        "fps_mode": "cfr",
        "r": _rate(info.fps),
        "c:v": "libx264",
        "preset": "veryfast",
        "crf": 20,
        "profile:v": "high",
        "c:a": "aac",
        "b:a": "128k",
        # The pixels are upright now: no display matrix may turn them again, and no source tags.
        "map_metadata": -1,
        "metadata:s:v:0": "rotate=0",
        # Index (moov) first, so a browser starts playing before the whole file has arrived.
        "movflags": "+faststart",
    }
    return (
        ffmpeg.output(video, source["a:0?"], str(partial), **options)
        # "warning", not "error": failure_reason needs ffmpeg's "misdetection possible" to tell a file
        # that is no video at all from an MP4 cut short.
        .global_args("-hide_banner", "-nostdin", "-nostats", "-loglevel", "warning", "-progress", "pipe:1")
        .overwrite_output()
    )


def make_proxy(
    src: Path,
    dst: Path,
    *,
    info: VideoInfo,
    on_progress: Callable[[int], None] | None = None,
    max_height: int = 1080,
    ffmpeg_bin: str = "ffmpeg",
    timeout_s: float | None = None,
) -> None:
    """H.264 (yuv420p) / AAC MP4 with faststart, rotation applied, constant frame rate, no taller than
    `max_height`. Written to a hidden file beside `dst` and renamed when complete, so a failure leaves
    nothing. `on_progress` gets 0..100, never decreasing, with 100 only once `dst` is in place. ffmpeg is
    stopped after `timeout_s` seconds (no limit by default)."""
    require_file(src)
    partial = dst.with_name(f".{dst.stem}.partial.mp4")
    progress = _Progress(info.duration_s, on_progress)
    try:
        try:
            run(
                _graph(src, partial, info, max_height),
                source=src,
                failed="the browser-safe copy failed",
                cmd=ffmpeg_bin,
                timeout_s=timeout_s,
                on_stdout=progress.read,
            )
        except FfmpegError as exc:
            reason = exc.reason
            if not reason.startswith("the browser-safe copy failed"):
                reason = f"the browser-safe copy failed: {reason}"
            raise MediaError(f"{src.name}: {reason}") from exc
        if not partial.is_file():
            raise MediaError(f"{src.name}: the browser-safe copy failed (ffmpeg wrote no file)")
        os.replace(partial, dst)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    if on_progress:
        on_progress(100)


class _Progress:
    """Progress from ffmpeg's `-progress` lines: output time against the source duration."""

    def __init__(self, duration_s: float, on_progress: Callable[[int], None] | None) -> None:
        self.duration_s = duration_s
        self.on_progress = on_progress
        self.done = -1

    def read(self, line: str) -> None:
        match = _OUT_TIME.match(line.strip())
        if match and self.on_progress and self.duration_s > 0:
            # 99 at most: 100 means the proxy is in place, which only make_proxy knows.
            percent = min(99, int(int(match.group(1)) / 1e6 / self.duration_s * 100))
            if percent > self.done:
                self.done = percent
                self.on_progress(percent)
