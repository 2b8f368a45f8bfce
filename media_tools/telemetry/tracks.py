"""Uploaded tracks: a CSV whose columns are guessed from their names or named by the admin, or a DJI
flight SRT."""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import MediaError
from .samples import TelemetrySample, checked, finish

# The fields a track can fill, in the order the upload form shows them.
FIELDS = ("time_s", "lat", "lon", "height_m", "alt_m", "heading_deg", "speed_mps")
REQUIRED = ("time_s", "lat", "lon")

# Header names (case-insensitive) each field is guessed from, best first. Height above take-off and
# altitude above sea level are kept apart: DJI logs both, and a footprint drawn from the sea-level one
# is off by the ground's elevation. A bare "alt" is taken as sea level, since GPS loggers write that.
_GUESSES = {
    # clip_time_s: per-frame logs of stills turned into a clip (e.g. one photo a second).
    "time_s": ("time_s", "t", "seconds", "time", "video_time_s", "clip_time_s"),
    "lat": ("lat", "latitude"),
    "lon": ("lon", "lng", "long", "longitude"),
    "height_m": (
        "height_m",
        "height",
        "rel_alt_m",
        "rel_alt",
        "relative_altitude",
        "relative_altitude_m",
        "height_above_takeoff_m",
        "agl_m",
        "alt_agl_m",
    ),
    "alt_m": ("alt_msl_m", "alt_m", "alt", "altitude", "altitude_m", "abs_alt", "abs_alt_m"),
    # The camera's heading is the image's up: a gimbal's yaw before the airframe's.
    "heading_deg": ("heading_deg", "heading", "gimbal_yaw_deg", "camera_yaw_deg", "yaw", "yaw_deg", "flight_yaw_deg"),
    "speed_mps": ("speed_mps", "speed", "speed_m_s"),
}
LABELS = {
    "time_s": "video time (s)",
    "lat": "latitude",
    "lon": "longitude",
    "height_m": "height above take-off (m)",
    "alt_m": "altitude above sea level (m)",
    "heading_deg": "camera heading (°)",
    "speed_mps": "speed (m/s)",
}


class ColumnError(MediaError):
    """The columns named for a CSV track do not fit it (the upload form shows this on the mapping)."""


@dataclass(frozen=True)
class TrackPreview:
    header: list[str]
    rows: list[list[str]]
    columns: dict[str, str]


def guess_columns(header: list[str]) -> dict[str, str]:
    """field -> column for every field whose column can be told from the header's names."""
    lower = {h.strip().lower(): h for h in header}
    found: dict[str, str] = {}
    for field, names in _GUESSES.items():
        match = next((lower[n] for n in names if n in lower and lower[n] not in found.values()), None)
        if match is not None:
            found[field] = match
    return found


def _resolve(path: Path, header: list[str], named: Mapping[str, str] | None) -> dict[str, str]:
    """The columns to read: the admin's choices where given ("" = the file has none), guesses for the
    rest. Refuses an unknown field, a column the file lacks, one column for two fields and a missing
    required field, each in a sentence naming it."""
    named = dict(named or {})
    unknown = sorted(set(named) - set(FIELDS))
    if unknown:
        raise ColumnError(f"{path.name}: unknown telemetry field {', '.join(unknown)} (fields: {', '.join(FIELDS)})")
    for field, column in named.items():
        if column and column not in header:
            raise ColumnError(
                f"{path.name}: no column {column!r} for {LABELS[field]} (the file has: {', '.join(header)})"
            )
    chosen = {f: c for f, c in named.items() if c}
    taken = set(chosen.values())
    for field, column in guess_columns([h for h in header if h not in taken]).items():
        if field not in named:
            chosen[field] = column
    used: dict[str, str] = {}
    for field, column in chosen.items():
        if column in used:
            both = f"{LABELS[used[column]]} and {LABELS[field]}"
            raise ColumnError(f"{path.name}: column {column!r} is named for both {both}")
        used[column] = field
    guessed_anyway = guess_columns(header)
    for field in REQUIRED:
        column = guessed_anyway.get(field, "")
        if field not in chosen and column in used:
            raise ColumnError(
                f"{path.name}: column {column!r} is named for {LABELS[used[column]]}; "
                f"name another column for {LABELS[field]}"
            )
    missing = [LABELS[f] for f in REQUIRED if f not in chosen]
    if missing:
        raise ColumnError(f"{path.name}: no column for {', '.join(missing)} (have: {', '.join(header)})")
    return {f: chosen[f] for f in FIELDS if f in chosen}


def preview_csv_track(path: Path, *, rows: int = 5) -> TrackPreview:
    """The header, the first rows and the guessed columns, for the upload form to show before import."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh)
            header = next(reader, [])
            first = [row for _, row in zip(range(rows), reader, strict=False)]
    except (UnicodeDecodeError, csv.Error) as exc:
        raise MediaError(f"{path.name}: not a readable CSV ({exc})") from exc
    if not header:
        raise MediaError(f"{path.name}: the CSV is empty")
    return TrackPreview(header=header, rows=first, columns=guess_columns(header))


def read_csv_track(path: Path, *, columns: Mapping[str, str] | None = None) -> list[TelemetrySample]:
    """A CSV with time (s from the video start), lat, lon and optional height, altitude, heading and
    speed; `columns` (field -> column, "" for none) overrides the guess for the fields it names."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            chosen = _resolve(path, list(reader.fieldnames or []), columns)
            samples = []
            for line, row in enumerate(reader, 2):
                values: dict[str, float | None] = {}
                for field, column in chosen.items():
                    text = (row.get(column) or "").strip()
                    if not text and field in REQUIRED:
                        raise MediaError(f"{path.name}: line {line}: {column} is empty")
                    try:
                        values[field] = float(text) if text else None
                    except ValueError:
                        raise MediaError(f"{path.name}: line {line}: {column} {text!r} is not a number") from None
                sample = TelemetrySample(**values)  # type: ignore[arg-type]
                samples.append(checked(path, f"line {line}", sample, (chosen["lat"], chosen["lon"])))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise MediaError(f"{path.name}: not a readable CSV ({exc})") from exc
    return finish(path, samples)


_SRT_TIME = re.compile(r"(\d+):(\d+):(\d+)[,.](\d+)\s*-->")
# Some DJI firmware spells it "longtitude".
_SRT_FIELD = re.compile(r"\[?(latitude|longt?itude|rel_alt|abs_alt|altitude)\s*[:=]\s*(-?[\d.]+)", re.IGNORECASE)
_SRT_GPS = re.compile(r"GPS\s*\(\s*(-?[\d.]+)\s*,\s*(-?[\d.]+)\s*,\s*(-?[\d.]+)")


def _srt_cue(path: Path, number: int, block: str) -> TelemetrySample | None:
    when = _SRT_TIME.search(block)
    if when is None:
        return None
    h, m, s, frac = when.groups()
    t = int(h) * 3600 + int(m) * 60 + int(s) + int(frac) / 10 ** len(frac)
    fields = {k.lower().replace("longtitude", "longitude"): float(v) for k, v in _SRT_FIELD.findall(block)}
    if "latitude" in fields and "longitude" in fields:
        sample = TelemetrySample(
            t,
            fields["latitude"],
            fields["longitude"],
            alt_m=fields.get("abs_alt", fields.get("altitude")),
            height_m=fields.get("rel_alt"),
        )
        return checked(path, f"cue {number}", sample)
    gps = _SRT_GPS.search(block)
    if gps:  # older DJI firmware: GPS(lon, lat, alt), the altitude above sea level
        lon, lat, alt = (float(v) for v in gps.groups())
        return checked(path, f"cue {number}", TelemetrySample(t, lat, lon, alt))
    return None


def read_srt_track(path: Path) -> list[TelemetrySample]:
    """A DJI flight SRT: one cue per frame or second with [latitude: ..] [longitude: ..] [rel_alt: ..
    abs_alt: ..], or GPS(lon, lat, alt) from older firmware. Cues without a position are skipped."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MediaError(f"{path.name}: not a readable SRT ({exc})") from exc
    blocks = [b for b in re.split(r"\n\s*\n", text.replace("\r\n", "\n")) if b.strip()]
    samples = [s for n, b in enumerate(blocks, 1) if (s := _srt_cue(path, n, b)) is not None]
    return finish(path, samples)


def read_track(path: Path, *, columns: Mapping[str, str] | None = None) -> list[TelemetrySample]:
    """An uploaded track by its suffix: .csv (with `columns`, see read_csv_track) or .srt."""
    if not path.is_file():
        raise MediaError(f"{path.name}: file not found")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return read_csv_track(path, columns=columns)
    if suffix == ".srt":
        if columns:
            raise ColumnError(f"{path.name}: columns can be named for a CSV track only; an SRT's fields are fixed")
        return read_srt_track(path)
    raise MediaError(f"{path.name}: a telemetry track is a .csv or a DJI .srt file")
