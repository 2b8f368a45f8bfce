"""GoPro GPMF telemetry in the video file.

GPMF is a KLV stream (GoPro's open format, github.com/gopro/gpmf-parser): 4-char key, a type char,
a struct size byte and a 16-bit repeat count, payload padded to 4 bytes, big-endian; type 0 nests.
Each data-track packet covers its own stretch of video time, and the samples in it are spread evenly
over that stretch.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ffmpeg

from ..errors import MediaError
from ..ffmpeg_run import FfmpegError, probe, require_file, run
from .samples import TelemetrySample

# GPMF type chars -> struct codes (the ones position records use; q/Q fixed point are not needed here).
_TYPES = {"b": "b", "B": "B", "s": "h", "S": "H", "l": "i", "L": "I", "f": "f", "d": "d", "j": "q", "J": "Q"}


class _GpmfError(ValueError):
    """A GPMF payload that cannot be parsed; read_gpmf adds the file name."""


@dataclass
class _Klv:
    key: str
    type: str
    size: int
    repeat: int
    body: bytes


def _walk(buf: bytes) -> Iterator[list[_Klv]]:
    """Yield the KLV items of each innermost container (a GPMF stream: STNM, TYPE, SCAL, data ...)."""
    items: list[_Klv] = []
    i = 0
    while i + 8 <= len(buf):
        key = buf[i : i + 4].decode("latin-1")
        kind, size, repeat = buf[i + 4], buf[i + 5], struct.unpack(">H", buf[i + 6 : i + 8])[0]
        length = size * repeat
        body = buf[i + 8 : i + 8 + length]
        if len(body) < length:
            raise _GpmfError(f"{key} is cut short ({len(body)} of {length} bytes)")
        if kind == 0:
            yield from _walk(body)
        else:
            items.append(_Klv(key, chr(kind), size, repeat, body))
        i += 8 + (length + 3) // 4 * 4  # payloads are padded to 32 bits
    if items:
        yield items


def _values(item: _Klv, type_string: str | None) -> list[tuple[Any, ...]]:
    """Decode a data item into rows: a complex ('?') item by its TYPE string, else by its own type."""
    if item.type == "?":
        unknown = sorted(set(type_string or "") - set(_TYPES))
        if not type_string or unknown:
            raise _GpmfError(f"{item.key} has an unusable TYPE description {type_string!r}")
        fmt = ">" + "".join(_TYPES[c] for c in type_string)
    else:
        code = _TYPES.get(item.type)
        if code is None:
            return []
        fmt = ">" + code * (item.size // struct.calcsize(">" + code))
    if struct.calcsize(fmt) != item.size:
        raise _GpmfError(f"{item.key}: record size {item.size} does not match its type")
    return [struct.unpack_from(fmt, item.body, k * item.size) for k in range(item.repeat)]


def _scaled(rows: list[tuple[Any, ...]], scal: list[float]) -> list[list[float]]:
    """Divide by SCAL: one divisor for every field, or one per field."""
    if not scal:
        return [list(map(float, r)) for r in rows]
    scales = scal if len(scal) > 1 else scal * len(rows[0])
    return [[v / (s or 1) for v, s in zip(r, scales, strict=False)] for r in rows]


# (lat, lon, altitude MSL, height above take-off, heading, speed)
_Row = tuple[float, float, float | None, float | None, float | None, float | None]


def _samples_in(payload: bytes) -> list[_Row]:
    """_Row rows of a payload: the Karma's 'Position' (GLPI) when present, which has the height above
    take-off; else the camera's GPS5 (lat, lon, alt, 2D speed, 3D speed) or GPS9 (HERO11+: the same
    first five), which have no height above ground."""
    glpi: list[_Row] = []
    gps: list[_Row] = []
    for items in _walk(payload):
        by_key = {it.key: it for it in items}
        type_string = by_key["TYPE"].body.decode("latin-1").rstrip("\0") if "TYPE" in by_key else None
        scal = [float(v[0]) for v in _values(by_key["SCAL"], None)] if "SCAL" in by_key else []
        if "GLPI" in by_key:
            for r in _scaled(_values(by_key["GLPI"], type_string), scal):
                # time since boot, lat, lon, alt MSL, relative alt, vx, vy, vz, heading
                glpi.append((r[1], r[2], r[3], r[4], r[8], (r[5] ** 2 + r[6] ** 2) ** 0.5))
        for key in ("GPS5", "GPS9"):
            if key in by_key:
                for r in _scaled(_values(by_key[key], type_string), scal):
                    gps.append((r[0], r[1], r[2], None, None, r[3]))
    return glpi or gps


def _gpmf_stream(video: Path, ffprobe_bin: str) -> tuple[int, float] | None:
    """(stream index, video start s) of the GPMF track, or None without one."""
    streams = probe(video, cmd=ffprobe_bin).get("streams", [])
    video_start = next((float(s.get("start_time") or 0) for s in streams if s.get("codec_type") == "video"), 0.0)
    index = next((int(s["index"]) for s in streams if s.get("codec_tag_string") == "gpmd"), None)
    return None if index is None else (index, video_start)


def _packets(video: Path, index: int, ffprobe_bin: str, ffmpeg_bin: str) -> list[tuple[float, float, bytes]]:
    """(start s, duration s, payload) of each packet of the data stream: times from ffprobe, the bytes
    from one ffmpeg copy of the stream, cut apart by the packet sizes."""
    entries = "packet=pts_time,duration_time,size"
    packets = probe(video, cmd=ffprobe_bin, select_streams=str(index), show_entries=entries).get("packets", [])
    copy = ffmpeg.input(str(video))[str(index)].output("pipe:", c="copy", format="data")
    try:
        data = run(
            copy.global_args("-v", "error", "-nostdin"),
            source=video,
            failed="ffmpeg could not copy it out",
            cmd=ffmpeg_bin,
            capture_stdout=True,
        )
    except FfmpegError as exc:
        raise MediaError(f"{video.name}: the GPMF telemetry track cannot be read ({exc.reason})") from exc
    sizes = [int(p["size"]) for p in packets]
    if len(data) != sum(sizes):
        raise MediaError(f"{video.name}: the GPMF telemetry track cannot be read (ffmpeg could not copy it out)")
    starts = [float(p.get("pts_time") or 0) for p in packets]
    result, offset = [], 0
    for n, (packet, size) in enumerate(zip(packets, sizes, strict=True)):
        # A packet without a duration lasts until the next one starts.
        duration = float(packet.get("duration_time") or 0) or (starts[n + 1] - starts[n] if n + 1 < len(starts) else 0)
        result.append((starts[n], duration, data[offset : offset + size]))
        offset += size
    return result


def read_gpmf(video: Path, *, ffprobe_bin: str = "ffprobe", ffmpeg_bin: str = "ffmpeg") -> list[TelemetrySample]:
    """Positions from a GoPro file's GPMF track, in seconds from the video's first frame; [] when the
    file has no GPMF track. Samples in a packet are spread evenly over the video time it covers;
    samples before the video starts and those without a GPS lock (0, 0) are left out."""
    require_file(video)
    found = _gpmf_stream(video, ffprobe_bin)
    if found is None:
        return []
    index, video_start = found
    samples = []
    for start, duration, payload in _packets(video, index, ffprobe_bin, ffmpeg_bin):
        try:
            rows = _samples_in(payload)
        except (_GpmfError, struct.error) as exc:
            raise MediaError(f"{video.name}: the GPMF telemetry track is damaged at {start:.2f} s ({exc})") from exc
        for k, (lat, lon, alt, height, heading, speed) in enumerate(rows):
            t = start - video_start + duration * k / len(rows)
            if (lat == 0 and lon == 0) or t < 0:
                continue
            samples.append(
                TelemetrySample(round(t, 4), lat, lon, alt_m=alt, heading_deg=heading, speed_mps=speed, height_m=height)
            )
    return sorted(samples, key=lambda s: s.time_s)
