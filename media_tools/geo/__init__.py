"""Satellite image display rendering, georeferencing (pixel <-> WGS84) and drone-frame orthorectification.

Framework-free like the rest of media_tools: paths and numbers in, values out, MediaError for a person.
"""

from .checks import browser_lonlat_fit, check_rms_m, orthophoto_from_frame
from .georef import (
    GeoReference,
    georef_from_corners,
    georef_from_gcps,
    georef_from_geotiff,
    georef_from_world_file,
    georeference,
)
from .ortho import orthorectify, read_gcp_csv
from .render import RenderInfo, render_display

__all__ = [
    "GeoReference",
    "RenderInfo",
    "browser_lonlat_fit",
    "check_rms_m",
    "georef_from_corners",
    "georef_from_gcps",
    "georef_from_geotiff",
    "georef_from_world_file",
    "georeference",
    "orthophoto_from_frame",
    "orthorectify",
    "read_gcp_csv",
    "render_display",
]
