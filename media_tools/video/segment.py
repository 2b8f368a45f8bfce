"""A time interval of a video as its own browser-playable MP4, for items about a segment.

Stream copy when the source plays in browsers as it is and a keyframe opens the interval (no
quality loss, no decoding, milliseconds of work); otherwise the interval is re-encoded to H.264, which
starts exactly at the requested time. Audio is left out: the items are about what is seen."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ffmpeg

from media_tools.errors import MediaError
from media_tools.ffmpeg_run import probe, require_file, run
from media_tools.probe import VideoInfo
from media_tools.proxy import proxy_reason


@dataclass(frozen=True)
class Segment:
    start_s: float
    end_s: float
    method: str  # "copy" or "reencode"
    why: str  # one line for people: why that method


def keyframe_times(video: Path, *, ffprobe_bin: str = "ffprobe") -> list[float]:
    """Presentation times (seconds from the first frame) of the keyframes of the first video stream,
    from one demux pass (packet flags; nothing is decoded)."""
    data = probe(video, cmd=ffprobe_bin, select_streams="V:0", show_entries="packet=pts_time,flags")
    packets = data.get("packets", [])
    stamps = [
        (float(p["pts_time"]), "K" in str(p.get("flags", "")))
        for p in packets
        if p.get("pts_time") not in (None, "", "N/A")
    ]
    if not stamps:
        return []
    first = min(t for t, _ in stamps)
    return sorted(round(t - first, 6) for t, key in stamps if key)


def _plan(info: VideoInfo, keyframes: list[float], start_s: float) -> tuple[str, str]:
    """(method, why): copy needs a browser-safe source and a keyframe within half a frame of the start."""
    reason = proxy_reason(info)
    if reason:
        return "reencode", f"re-encoded: {reason}"
    tolerance = 0.5 / info.fps
    if not any(abs(k - start_s) <= tolerance for k in keyframes):
        return "reencode", f"re-encoded: no keyframe at {start_s:.2f} s"
    return "copy", f"stream copy from the keyframe at {start_s:.2f} s"


def _graph(src: Path, dst: Path, start_s: float, end_s: float, fps: float, method: str) -> Any:
    # ss on the input: seek in the container, so only the interval is read (and, copied, it starts at
    # the keyframe found there). Only the picture is mapped: no audio, subtitles, data or source tags.
    video = ffmpeg.input(str(src), ss=f"{start_s:.6f}")["V:0"]
    options: dict[str, Any] = {"format": "mp4", "map_metadata": -1, "movflags": "+faststart"}
    if method == "copy":
        # A duration limit on copied packets is checked against decoding times, which trail the
        # presentation times by the B-frame delay (a few frames too many); the frame count is exact
        # on a constant-rate source, the only kind copied.
        options |= {"frames:v": max(1, round((end_s - start_s) * fps)), "c:v": "copy"}
    else:
        # Even sides for 4:2:0; ffmpeg has turned the picture upright already (autorotate).
        video = video.filter("scale", "trunc(iw/2)*2", "trunc(ih/2)*2").filter("format", "yuv420p")
        options |= {"t": f"{end_s - start_s:.6f}", "c:v": "libx264", "preset": "veryfast", "crf": 20}
        options["metadata:s:v:0"] = "rotate=0"
    return (
        video.output(str(dst), **options)
        .global_args("-hide_banner", "-nostdin", "-nostats", "-loglevel", "error")
        .overwrite_output()
    )


def cut_segment(
    src: Path,
    dst: Path,
    *,
    info: VideoInfo,
    start_s: float,
    end_s: float,
    ffmpeg_bin: str = "ffmpeg",
    ffprobe_bin: str = "ffprobe",
    timeout_s: float | None = None,
) -> Segment:
    """Write [start_s, end_s] of `src` (times from its first frame; the end is clamped to its
    duration) to `dst` as MP4 with faststart. Written to a hidden file and renamed when complete;
    MediaError names the file and the reason."""
    require_file(src)
    if start_s < 0 or end_s <= start_s:
        raise MediaError(f"{src.name}: the segment {start_s:.2f}-{end_s:.2f} s is empty or starts before 0")
    if start_s >= info.duration_s:
        raise MediaError(
            f"{src.name}: the segment starts at {start_s:.2f} s, after the video ends ({info.duration_s:.2f} s)"
        )
    end_s = min(end_s, info.duration_s)
    method, why = _plan(info, keyframe_times(src, ffprobe_bin=ffprobe_bin), start_s)
    partial = dst.with_name(f".{dst.stem}.partial.mp4")
    try:
        graph = _graph(src, partial, start_s, end_s, info.fps, method)
        run(graph, source=src, failed="cutting the segment failed", cmd=ffmpeg_bin, timeout_s=timeout_s)
        if not partial.is_file() or partial.stat().st_size == 0:
            raise MediaError(f"{src.name}: cutting the segment failed (ffmpeg wrote an empty file)")
        os.replace(partial, dst)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return Segment(start_s, end_s, method, why)
