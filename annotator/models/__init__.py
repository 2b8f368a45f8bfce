"""Tables and database constraints only; business rules live in services/."""

from .marks import Item, Mark
from .media import Keyframe, MediaJob, SatelliteImage, TelemetrySample, TelemetryTrack, Video
from .scenes import Assignment, Scene

__all__ = [
    "Assignment",
    "Item",
    "Keyframe",
    "Mark",
    "MediaJob",
    "SatelliteImage",
    "Scene",
    "TelemetrySample",
    "TelemetryTrack",
    "Video",
]
