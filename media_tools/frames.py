"""Frame extraction with ffmpeg: keyframes at a rate, with their true presentation times."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import ffmpeg
from PIL import Image

from .errors import MediaError
from .ffmpeg_run import require_file, run
from .probe import MIN_SIDE_PX

_SHOWINFO_TB = re.compile(r"Parsed_showinfo.*config in time_base:\s*(\d+)/(\d+)")
_SHOWINFO_PTS = re.compile(r"Parsed_showinfo.*\bn:\s*\d+\s+pts:\s*(-?\d+)\b")
_DURATION = re.compile(r"^\s*Duration:\s*(\d+):(\d\d):(\d\d(?:\.\d+)?)")


@dataclass(frozen=True)
class Frame:
    index: int
    time_s: float
    path: Path


def _select_expr(fps: float) -> str:
    """Keep, for each grid time k/fps after the first frame, the decoded frame nearest to it.

    A frame at t owns the times up to half an interval past it; the interval is taken from the
    previous frame, (t - prev_t), so no probe is needed. `selected_n` (frames kept so far) is the next
    grid index still unowned, so a gap in the timestamps never loses a grid time and an overlap never
    takes one twice. The first frame always owns time 0.
    """
    return f"isnan(prev_t)+lt(selected_n,((3*t-prev_t)/2-start_t)*{fps!r})"


def _graph(video: Path, work: Path, fps: float) -> Any:
    # "V": the first real video stream, never cover art; audio, subtitles and data are not read.
    # checksum=0: only the timestamps are wanted; hashing every frame costs time.
    kept = ffmpeg.input(str(video))["V:0"].filter("select", _select_expr(fps)).filter("showinfo", checksum=0)
    return kept.output(
        str(work / "frame_%06d.jpg"),
        # passthrough: one JPEG per selected frame, never a duplicate or a dropped one.
        fps_mode="passthrough",
        # Full-size JPEGs at a quality fit for annotation. Encoding them is most of the cost beyond
        # decoding: the standard Huffman tables skip the extra pass that optimal ones need, for about
        # 6% less CPU and 2.5% larger files. (Lower quality and fast scaler flags saved too little,
        # and Pillow's libjpeg-turbo fed through a pipe saved nothing.)
        huffman="default",
        start_number=0,
        **{"q:v": 3},
    ).global_args("-hide_banner", "-nostdin", "-nostats", "-loglevel", "info")


@dataclass
class _Log:
    """What keyframes needs from ffmpeg's log, read as it is written."""

    duration_s: float | None = None
    time_base: Fraction | None = None
    pts: list[int] = field(default_factory=list)

    def read(self, line: str) -> int | None:
        """Record one log line; return the pts of a kept frame when the line reports one."""
        if match := _SHOWINFO_PTS.search(line):
            self.pts.append(int(match.group(1)))
            return self.pts[-1]
        if match := _SHOWINFO_TB.search(line):
            self.time_base = Fraction(int(match.group(1)), int(match.group(2)))
        elif (match := _DURATION.match(line)) and self.duration_s is None:
            h, m, s = match.groups()
            self.duration_s = int(h) * 3600 + int(m) * 60 + float(s)
        return None


def _run_keyframes(
    graph: Any, video: Path, log: _Log, on_progress: Callable[[float], None] | None, cmd: str, timeout_s: float | None
) -> None:
    done = 0.0

    def on_line(line: str) -> bool:
        nonlocal done
        pts = log.read(line)
        if pts is not None and on_progress and log.duration_s and log.time_base is not None:
            done = max(done, min(1.0, float(pts * log.time_base) / log.duration_s))
            on_progress(done)
        # showinfo's per-frame reports are not messages: they stay out of the failure reason.
        return "Parsed_showinfo" in line

    run(graph, source=video, failed="frame extraction failed", cmd=cmd, timeout_s=timeout_s, on_stderr=on_line)


def _check_size(video: Path, image: Path) -> None:
    """Refuse what probe_video refuses: ffmpeg decodes a 1x1 px video happily."""
    with Image.open(image) as img:
        width, height = img.size
    if width < MIN_SIDE_PX or height < MIN_SIDE_PX:
        raise MediaError(f"{video.name}: the picture is {width}x{height} px, too small to annotate")


def _checked_frames(video: Path, log: _Log, work: Path) -> list[tuple[float, Path]]:
    files = sorted(work.glob("frame_*.jpg"))
    pts = log.pts
    if not files:
        raise MediaError(f"{video.name}: no frames could be decoded")
    if len(files) != len(pts) or log.time_base is None:
        raise MediaError(f"{video.name}: wrote {len(files)} frames but read {len(pts)} timestamps")
    _check_size(video, files[0])
    # Seconds from the stream's first frame: exact from the integer pts (showinfo's pts_time has only
    # six significant digits, 10 ms past 1000 s).
    return [(float((p - pts[0]) * log.time_base), f) for p, f in zip(pts, files, strict=True)]


def keyframes(
    video: Path,
    out_dir: Path,
    *,
    fps: float,
    duration_s: float | None = None,
    on_progress: Callable[[float], None] | None = None,
    ffmpeg_bin: str = "ffmpeg",
    timeout_s: float | None = None,
) -> list[Frame]:
    """One ffmpeg pass writing full-size JPEGs `frame_000000.jpg`... into `out_dir`.

    Frame k is the decoded frame nearest to k/fps seconds after the stream's first frame (within half
    a frame interval for constant-rate video); `time_s` is its exact presentation time from that first
    frame, so the first is 0. `on_progress` receives 0..1, never decreasing, ending with 1.0; the
    duration comes from `duration_s` or else from ffmpeg's own header. ffmpeg is stopped after
    `timeout_s` seconds (no limit by default). On failure nothing is left in `out_dir`.
    """
    if fps <= 0:
        raise ValueError("fps must be positive")
    require_file(video)
    created = not out_dir.exists()
    out_dir.mkdir(parents=True, exist_ok=True)
    # ffmpeg writes into a hidden folder inside out_dir (same file system, so moving out is a rename).
    work = Path(tempfile.mkdtemp(prefix=".keyframes-", dir=out_dir))
    try:
        log = _Log(duration_s=duration_s)
        _run_keyframes(_graph(video, work, fps), video, log, on_progress, ffmpeg_bin, timeout_s)
        timed = _checked_frames(video, log, work)
        frames = []
        for i, (time_s, path) in enumerate(timed):
            final = out_dir / path.name
            os.replace(path, final)
            frames.append(Frame(index=i, time_s=round(time_s, 6), path=final))
    except BaseException:
        if created:
            shutil.rmtree(out_dir, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if on_progress:
        on_progress(1.0)
    return frames


def extract_frame(
    video: Path, out_path: Path, *, time_s: float, ffmpeg_bin: str = "ffmpeg", timeout_s: float | None = None
) -> Path:
    """Write the frame shown at `time_s` as an image (format from the suffix); nothing on failure."""
    require_file(video)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    partial = out_path.with_name(f".{out_path.stem}.partial{out_path.suffix}")
    # ss on the input: seek in the container to the keyframe before time_s and decode from there.
    graph = (
        ffmpeg.input(str(video), ss=f"{time_s:.3f}")["V:0"]
        .output(str(partial), **{"frames:v": 1, "q:v": 2})
        # "warning", not "error": failure_reason needs ffmpeg's "misdetection possible" to tell a file
        # that is no video at all from an MP4 cut short.
        .global_args("-hide_banner", "-nostdin", "-loglevel", "warning")
        .overwrite_output()
    )
    try:
        run(graph, source=video, failed="frame extraction failed", cmd=ffmpeg_bin, timeout_s=timeout_s)
        if not partial.is_file() or partial.stat().st_size == 0:
            raise MediaError(f"{video.name}: no frame at {time_s:.2f} s")
        _check_size(video, partial)
        os.replace(partial, out_path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return out_path
