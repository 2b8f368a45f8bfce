"""Drone telemetry over video time: GoPro GPMF in the file (gpmf.py), or an uploaded CSV or DJI SRT
track (tracks.py), whose CSV columns an admin can name when the guess is wrong."""

from __future__ import annotations

from .gpmf import read_gpmf
from .samples import TelemetrySample
from .tracks import (
    FIELDS,
    LABELS,
    REQUIRED,
    ColumnError,
    TrackPreview,
    guess_columns,
    preview_csv_track,
    read_csv_track,
    read_srt_track,
    read_track,
)

__all__ = [
    "FIELDS",
    "LABELS",
    "REQUIRED",
    "ColumnError",
    "TelemetrySample",
    "TrackPreview",
    "guess_columns",
    "preview_csv_track",
    "read_csv_track",
    "read_gpmf",
    "read_srt_track",
    "read_track",
]
