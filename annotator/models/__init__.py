"""Tables and database constraints only; business rules live in services/."""

from .compiling import ModelView, Phrasing, ViewsSignal
from .cvaa import CvaaCheckpoint, CvaaPreview, CvaaTraining, FrameFootprint
from .marks import Item, Mark
from .media import Keyframe, MediaJob, SatelliteImage, TelemetrySample, TelemetryTrack, Video
from .scenes import Assignment, Scene

__all__ = [
    "Assignment",
    "CvaaCheckpoint",
    "CvaaPreview",
    "CvaaTraining",
    "FrameFootprint",
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
    "ViewsSignal",
]
