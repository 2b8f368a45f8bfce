"""Video probing with ffprobe: what the stream is, how it is shown, and whether it is whole.

ffprobe runs through ffmpeg_run, as every ffmpeg command does, so that every failure reads the same way
to a person: "<file name>: <reason they can act on>".
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from .errors import MediaError
from .ffmpeg_run import probe, probe_packets, require_file

# Smaller than this on either side, a picture has nothing to annotate (a placeholder stream, a 1x1 dot).
MIN_SIDE_PX = 16

# Demuxers that mean "a still image", not a video (ffprobe reads a PNG as a one-frame video stream).
_IMAGE_FORMATS = re.compile(r"^(image2|.*_pipe|apng|webp)$")


@dataclass(frozen=True)
class VideoInfo:
    duration_s: float
    fps: float
    frame_count: int
    width: int
    height: int
    codec: str
    pixel_format: str
    has_audio: bool
    start_time_s: float
    # Clockwise degrees a player turns the stored picture for display (0/90/180/270).
    rotation: int = 0
    # True when frame i is not shown at start + i/fps within half a frame (see _is_vfr).
    is_vfr: bool = False
    container: str = ""  # ffprobe's format_name, e.g. "mov,mp4,m4a,3gp,3g2,mj2"
    display_width: int = 0  # size after rotation: what a viewer sees
    display_height: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _rate(text: str | None) -> float:
    if not text or text in ("0/0", "0", "N/A"):
        return 0.0
    return float(Fraction(text))


def _rotation(video: dict[str, Any]) -> int:
    """Clockwise display rotation. ffprobe reports the display matrix's angle counter-clockwise
    (ffmpeg's autorotate turns the picture by minus that angle), a legacy `rotate` tag clockwise."""
    for side in video.get("side_data_list") or []:
        if "rotation" in side:
            return round(-float(side["rotation"]) / 90) * 90 % 360
    tag = str((video.get("tags") or {}).get("rotate", "0"))
    return round(float(tag) / 90) * 90 % 360 if re.fullmatch(r"-?\d+(\.\d+)?", tag) else 0


def _video_stream(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    fmt = str(data.get("format", {}).get("format_name", ""))
    streams = data.get("streams", [])
    if _IMAGE_FORMATS.match(fmt):
        codec = streams[0].get("codec_name", fmt) if streams else fmt
        raise MediaError(f"{path.name}: this is a still image ({codec}), not a video")
    for stream in streams:
        if stream.get("codec_type") == "video" and not stream.get("disposition", {}).get("attached_pic"):
            return dict(stream)
    raise MediaError(f"{path.name}: no video stream found")


def _checked_size(path: Path, video: dict[str, Any]) -> tuple[int, int]:
    width, height = int(video.get("width") or 0), int(video.get("height") or 0)
    if width <= 0 or height <= 0:
        raise MediaError(f"{path.name}: the video stream has no picture size")
    if width < MIN_SIDE_PX or height < MIN_SIDE_PX:
        raise MediaError(
            f"{path.name}: the picture is {width}x{height} px, too small to annotate "
            f"(at least {MIN_SIDE_PX}x{MIN_SIDE_PX} px is needed)"
        )
    return width, height


@dataclass(frozen=True)
class _Packets:
    count: int
    pts: list[int]  # presentation times in stream ticks, sorted, discarded packets left out
    partial: bool  # the demuxer hit the end of the file inside a packet


def _packets(path: Path, index: int, ffprobe_bin: str) -> _Packets:
    """One demux pass over the video packets (no decoding): the true frame count, the timestamps for
    the frame-rate check, and whether the file ends early."""
    packets, err = probe_packets(path, str(index), "pts,dts,flags", cmd=ffprobe_bin)
    pts = []
    for fields in packets:
        stamp = fields.get("pts") if fields.get("pts", "N/A") != "N/A" else fields.get("dts")
        if "D" not in fields.get("flags", "") and stamp not in (None, "N/A"):
            pts.append(int(stamp))
    # The MP4/MOV demuxer says "partial file" when a packet runs past the end of the file.
    return _Packets(len(packets), sorted(pts), "partial file" in err)


def _is_vfr(pts: list[int]) -> bool:
    """Variable frame rate, judged by what the platform relies on: that frame i is shown at
    start + i/fps. Fit the even grid through the first and last frame; if any frame is more than half a
    frame interval off it, frame numbers and times disagree. This ignores timestamp rounding (MKV's
    1 ms ticks make 29.97 fps alternate 33/34 ms) and a long last frame, which make ffprobe's
    r_frame_rate and avg_frame_rate differ on constant-rate files, yet flags dropped or repeated
    frames and phone recordings whose rate wanders."""
    if len(pts) < 3:
        return False
    step = (pts[-1] - pts[0]) / (len(pts) - 1)
    if step <= 0:
        return True
    return max(abs(p - (pts[0] + i * step)) for i, p in enumerate(pts)) > step / 2


def _frame_count(path: Path, video: dict[str, Any], container: str, packets: _Packets) -> int:
    declared = int(video.get("nb_frames") or 0)
    # An MP4/MOV index lists every sample, so fewer packets than that means the data ends early. (AVI
    # counts empty "repeat the last frame" chunks that ffprobe skips, so its counts may differ.)
    short = declared and packets.count < declared and "mov" in container.split(",")
    if packets.partial or short:
        present = f"only {packets.count} of {declared} frames are present" if short else "it ends mid-frame"
        raise MediaError(f"{path.name}: the file is truncated ({present}); upload the complete file")
    # nb_frames is the container's sample count; without it (MKV, MPEG-TS, some MOV) count the packets.
    return declared or packets.count


def probe_video(path: Path, *, ffprobe_bin: str = "ffprobe") -> VideoInfo:
    """Read duration, frame rate, exact frame count, size, rotation and codec of the first video stream.
    Raises MediaError with the reason a person can act on (empty, not a video, no video stream,
    truncated, too small)."""
    require_file(path)
    data = probe(path, cmd=ffprobe_bin)
    video = _video_stream(path, data)
    width, height = _checked_size(path, video)
    fmt = data.get("format", {})
    fps = _rate(video.get("avg_frame_rate")) or _rate(video.get("r_frame_rate"))
    duration = float(video.get("duration") or fmt.get("duration") or 0.0)
    if duration <= 0 or fps <= 0:
        raise MediaError(f"{path.name}: the video has no duration or frame rate; re-encode or upload it again")
    container = str(fmt.get("format_name", ""))
    packets = _packets(path, int(video["index"]), ffprobe_bin)
    rotation = _rotation(video)
    turned = rotation in (90, 270)
    return VideoInfo(
        duration_s=duration,
        fps=fps,
        frame_count=_frame_count(path, video, container, packets),
        width=width,
        height=height,
        codec=str(video.get("codec_name", "unknown")),
        pixel_format=str(video.get("pix_fmt", "unknown")),
        has_audio=any(s.get("codec_type") == "audio" for s in data.get("streams", [])),
        start_time_s=float(video.get("start_time") or 0.0),
        rotation=rotation,
        is_vfr=_is_vfr(packets.pts),
        container=container,
        display_width=height if turned else width,
        display_height=width if turned else height,
    )
