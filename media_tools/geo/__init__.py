"""Satellite image display rendering, georeferencing (pixel <-> WGS84) and drone-frame orthorectification.

Framework-free like the rest of media_tools: paths and numbers in, values out, MediaError for a person.
Names load their submodule on first use (media_tools/_lazy.py): a web request that only converts
coordinates with a GeoReference never imports OpenCV or GDAL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .checks import browser_lonlat_fit, check_rms_m, orthophoto_from_frame
    from .gcps import read_gcp_csv
    from .georef import (
        GeoReference,
        georef_from_corners,
        georef_from_gcps,
        georef_from_geotiff,
        georef_from_world_file,
        georeference,
    )
    from .ortho import orthorectify
    from .render import RenderInfo, render_display

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "browser_lonlat_fit": "checks",
        "check_rms_m": "checks",
        "orthophoto_from_frame": "checks",
        "GeoReference": "georef",
        "georef_from_corners": "georef",
        "georef_from_gcps": "georef",
        "georef_from_geotiff": "georef",
        "georef_from_world_file": "georef",
        "georeference": "georef",
        "orthorectify": "ortho",
        "read_gcp_csv": "gcps",
        "RenderInfo": "render",
        "render_display": "render",
    },
)

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
