"""Tables and database constraints only; business rules live in services/."""

from .compiling import ModelView, Phrasing
from .marks import Item, Mark
from .media import Keyframe, MediaJob, SatelliteImage, TelemetrySample, TelemetryTrack, Video
from .scenes import Assignment, Scene

__all__ = [
    "Assignment",
    "Item",
    "Keyframe",
    "Mark",
    "MediaJob",
    "ModelView",
    "Phrasing",
    "SatelliteImage",
    "Scene",
    "TelemetrySample",
    "TelemetryTrack",
    "Video",
]
