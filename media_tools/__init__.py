"""Framework-free media library: paths and numbers in, values out. No Django imports here."""

from .errors import MediaError
from .filmstrip import FilmstripInfo, build_filmstrip, make_poster
from .frames import Frame, extract_frame, keyframes
from .images import ImageInfo, inspect_image
from .probe import VideoInfo, probe_video
from .proxy import make_proxy, proxy_reason
from .telemetry import TelemetrySample, read_csv_track, read_gpmf, read_srt_track, read_track

__all__ = [
    "FilmstripInfo",
    "Frame",
    "ImageInfo",
    "MediaError",
    "TelemetrySample",
    "VideoInfo",
    "build_filmstrip",
    "extract_frame",
    "inspect_image",
    "keyframes",
    "make_poster",
    "make_proxy",
    "probe_video",
    "proxy_reason",
    "read_csv_track",
    "read_gpmf",
    "read_srt_track",
    "read_track",
]
