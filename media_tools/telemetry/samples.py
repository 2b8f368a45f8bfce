"""One position of the drone over video time, and the checks every reader applies to it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from ..errors import MediaError


@dataclass(frozen=True)
class TelemetrySample:
    """`alt_m` is the altitude above mean sea level (GPS); `height_m` is the height above the take-off
    point (barometric "relative altitude"), which is what a footprint needs: the two differ by the
    ground's elevation, tens to thousands of metres, so one never stands in for the other."""

    time_s: float
    lat: float
    lon: float
    alt_m: float | None = None
    heading_deg: float | None = None
    speed_mps: float | None = None
    height_m: float | None = None


def checked(
    path: Path, where: str, sample: TelemetrySample, names: tuple[str, str] = ("latitude", "longitude")
) -> TelemetrySample:
    """Refuse a position off the globe or a time before the video, naming the place and the column."""
    for name, value, limit in ((names[0], sample.lat, 90), (names[1], sample.lon, 180)):
        if not -limit <= value <= limit:
            raise MediaError(
                f"{path.name}: {where}: {name} {value} is outside -{limit}..{limit}, so "
                f"({sample.lat}, {sample.lon}) is not a WGS84 lat/lon"
            )
    if not math.isfinite(sample.time_s):
        raise MediaError(f"{path.name}: {where}: time {sample.time_s} is not a number of seconds")
    if sample.time_s < 0:
        raise MediaError(f"{path.name}: {where}: time {sample.time_s} s is before the video starts")
    return sample


def finish(path: Path, samples: list[TelemetrySample]) -> list[TelemetrySample]:
    if not samples:
        raise MediaError(f"{path.name}: the track has no samples")
    return sorted(samples, key=lambda s: s.time_s)
