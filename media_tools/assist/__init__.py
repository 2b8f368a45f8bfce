"""Assisted trajectories: track a target through decoded video frames (tracker.py, frames.py) and
project the track onto a satellite image through the keyframes' placements (projection.py).
Names load their submodule on first use, so importing the package costs no OpenCV."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .frames import MAX_BACKWARD_FRAMES, decode, frame_count
    from .projection import INTERPOLATE, NEAREST, MapVertex, PlacedKeyframe, project_track
    from .tracker import Box, Frame, TemplateTracker, Track, TrackedFrame, TrackerParams, track

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "MAX_BACKWARD_FRAMES": "frames",
        "decode": "frames",
        "frame_count": "frames",
        "INTERPOLATE": "projection",
        "NEAREST": "projection",
        "MapVertex": "projection",
        "PlacedKeyframe": "projection",
        "project_track": "projection",
        "Box": "tracker",
        "Frame": "tracker",
        "TemplateTracker": "tracker",
        "Track": "tracker",
        "TrackedFrame": "tracker",
        "TrackerParams": "tracker",
        "track": "tracker",
    },
)

__all__ = [
    "INTERPOLATE",
    "MAX_BACKWARD_FRAMES",
    "NEAREST",
    "Box",
    "Frame",
    "MapVertex",
    "PlacedKeyframe",
    "TemplateTracker",
    "Track",
    "TrackedFrame",
    "TrackerParams",
    "decode",
    "frame_count",
    "project_track",
    "track",
]
