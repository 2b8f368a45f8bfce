"""What a scene import is asked to make: the media, georeference inputs, telemetry and people
(filled by the upload form, the API and manifests alike)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CORNER_KEYS = ("tl", "tr", "br", "bl")
# Text people write about a scene: room for a paragraph or two, not for a file pasted by mistake.
MAX_DESCRIPTION = 10_000


@dataclass
class SceneSpec:
    """One scene to import: local paths plus metadata (from a manifest row or an upload form)."""

    name: str
    video: Path
    satellite: list[Path] = field(default_factory=list)
    # Use the video frame at this time as the image when no satellite image is given.
    satellite_from_keyframe_s: float | None = None
    corners: dict[str, Any] | None = None
    # Control points [x, y, lat, lon] in the pixels of the scene's image (the keyframe when one is
    # used, else the single satellite image).
    gcps: list[list[float]] | None = None
    # Warp the video frame at this time north-up with the control points instead of using it as is.
    orthophoto_from_keyframe_s: float | None = None
    world_file: Path | None = None
    world_file_crs: str = ""
    # A drone track uploaded beside the video (CSV or DJI SRT), and the CSV columns named for its
    # fields where the names are nobody's guess (field -> column, "" = not in the file).
    telemetry: Path | None = None
    telemetry_columns: dict[str, str] = field(default_factory=dict)
    description: str = ""
    source_license: str = ""
    source_attribution: str = ""
    annotators: list[str] = field(default_factory=list)
    # Names as people uploaded them (uploads arrive under temp names).
    video_name: str | None = None
    satellite_names: list[str] = field(default_factory=list)
    telemetry_name: str | None = None

    @property
    def keyframe_s(self) -> float | None:
        return (
            self.orthophoto_from_keyframe_s
            if self.orthophoto_from_keyframe_s is not None
            else (self.satellite_from_keyframe_s)
        )
