"""Framework-free media library: paths and numbers in, values out. No Django imports here.

The names below load their submodule on first use (media_tools/_lazy.py): `import media_tools` costs
nothing, and `media_tools.inspect_image` imports rasterio only when it is first looked up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports
from .errors import MediaError

if TYPE_CHECKING:
    from .filmstrip import FilmstripInfo, build_filmstrip, make_poster
    from .frames import Frame, extract_frame, keyframes
    from .images import ImageInfo, inspect_image
    from .probe import VideoInfo, probe_video
    from .proxy import make_proxy, proxy_reason
    from .telemetry import (
        TelemetrySample,
        TrackPreview,
        preview_csv_track,
        read_csv_track,
        read_gpmf,
        read_srt_track,
        read_track,
    )

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "FilmstripInfo": "filmstrip",
        "build_filmstrip": "filmstrip",
        "make_poster": "filmstrip",
        "Frame": "frames",
        "extract_frame": "frames",
        "keyframes": "frames",
        "ImageInfo": "images",
        "inspect_image": "images",
        "VideoInfo": "probe",
        "probe_video": "probe",
        "make_proxy": "proxy",
        "proxy_reason": "proxy",
        "TelemetrySample": "telemetry",
        "TrackPreview": "telemetry",
        "preview_csv_track": "telemetry",
        "read_csv_track": "telemetry",
        "read_gpmf": "telemetry",
        "read_srt_track": "telemetry",
        "read_track": "telemetry",
    },
)

__all__ = [
    "FilmstripInfo",
    "Frame",
    "ImageInfo",
    "MediaError",
    "TelemetrySample",
    "TrackPreview",
    "VideoInfo",
    "build_filmstrip",
    "extract_frame",
    "inspect_image",
    "keyframes",
    "make_poster",
    "make_proxy",
    "preview_csv_track",
    "probe_video",
    "proxy_reason",
    "read_csv_track",
    "read_gpmf",
    "read_srt_track",
    "read_track",
]
