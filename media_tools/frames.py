"""Frame extraction with ffmpeg: keyframes at a rate, with their true presentation times."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from PIL import Image

from .errors import MediaError
from .probe import MIN_SIDE_PX, failure_reason, require_file

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
    return f"select='isnan(prev_t)+lt(selected_n,((3*t-prev_t)/2-start_t)*{fps!r})'"


def _command(video: Path, work: Path, fps: float, ffmpeg_bin: str) -> list[str]:
    return [
        ffmpeg_bin, "-hide_banner", "-nostdin", "-nostats", "-loglevel", "info",
        "-i", str(video),
        # "V": the first real video stream, never cover art; audio, subtitles and data are not read.
        "-map", "0:V:0", "-an", "-sn", "-dn",
        # checksum=0: only the timestamps are wanted; hashing every frame costs time.
        "-vf", f"{_select_expr(fps)},showinfo=checksum=0",
        # passthrough: one JPEG per selected frame, never a duplicate or a dropped one.
        "-fps_mode", "passthrough",
        # Full-size JPEGs at a quality fit for annotation. Encoding them is most of the cost beyond
        # decoding: the standard Huffman tables skip the extra pass that optimal ones need, for about
        # 6% less CPU and 2.5% larger files. (Lower quality and fast scaler flags saved too little,
        # and Pillow's libjpeg-turbo fed through a pipe saved nothing.)
        "-q:v", "3", "-huffman", "default",
        "-start_number", "0", str(work / "frame_%06d.jpg"),
    ]  # fmt: skip


@dataclass
class _Log:
    """What keyframes needs from ffmpeg's log, read as it is written."""

    duration_s: float | None = None
    time_base: Fraction | None = None
    pts: list[int] = field(default_factory=list)
    # The last lines that are not per-frame reports: where ffmpeg says why it failed.
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=20))

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
        elif "Parsed_showinfo" not in line and line.strip():
            self.tail.append(line.strip())
        return None


def _run_keyframes(cmd: list[str], video: Path, log: _Log, on_progress: Callable[[float], None] | None) -> None:
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
    except FileNotFoundError as exc:
        raise MediaError(f"{cmd[0]} is not installed; install ffmpeg") from exc
    assert proc.stderr is not None
    done = 0.0
    try:
        for line in proc.stderr:
            pts = log.read(line)
            if pts is not None and on_progress and log.duration_s and log.time_base is not None:
                done = max(done, min(1.0, float(pts * log.time_base) / log.duration_s))
                on_progress(done)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    if proc.wait() != 0:
        reason = failure_reason(video, "\n".join(log.tail), "frame extraction failed")
        raise MediaError(f"{video.name}: {reason}")


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
) -> list[Frame]:
    """One ffmpeg pass writing full-size JPEGs `frame_000000.jpg`... into `out_dir`.

    Frame k is the decoded frame nearest to k/fps seconds after the stream's first frame (within half
    a frame interval for constant-rate video); `time_s` is its exact presentation time from that first
    frame, so the first is 0. `on_progress` receives 0..1, never decreasing, ending with 1.0; the
    duration comes from `duration_s` or else from ffmpeg's own header. On failure nothing is left in
    `out_dir`.
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
        _run_keyframes(_command(video, work, fps, ffmpeg_bin), video, log, on_progress)
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


def extract_frame(video: Path, out_path: Path, *, time_s: float, ffmpeg_bin: str = "ffmpeg") -> Path:
    """Write the frame shown at `time_s` as an image (format from the suffix); nothing on failure."""
    require_file(video)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    partial = out_path.with_name(f".{out_path.stem}.partial{out_path.suffix}")
    cmd = [
        # "warning", not "error": failure_reason needs ffmpeg's "misdetection possible" to tell a file
        # that is no video at all from an MP4 cut short.
        ffmpeg_bin, "-hide_banner", "-nostdin", "-loglevel", "warning",
        "-ss", f"{time_s:.3f}", "-i", str(video),
        "-map", "0:V:0", "-frames:v", "1", "-q:v", "2", "-y", str(partial),
    ]  # fmt: skip
    try:
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", check=False)
        except FileNotFoundError as exc:
            raise MediaError(f"{ffmpeg_bin} is not installed; install ffmpeg") from exc
        if proc.returncode != 0:
            raise MediaError(f"{video.name}: {failure_reason(video, proc.stderr, 'frame extraction failed')}")
        if not partial.is_file() or partial.stat().st_size == 0:
            raise MediaError(f"{video.name}: no frame at {time_s:.2f} s")
        _check_size(video, partial)
        os.replace(partial, out_path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return out_path
