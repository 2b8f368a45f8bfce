"""Tables and database constraints only; business rules live in services/."""

from .assist import TrackingJob
from .compiling import ModelView, Phrasing, ViewsSignal
from .cvaa import CvaaCheckpoint, CvaaPreview, CvaaTraining, FrameFootprint, KeyframePlacement
from .marks import Item, Mark
from .media import Keyframe, MediaJob, SatelliteImage, TelemetrySample, TelemetryTrack, Video
from .projects import DEFAULT_PROJECT_SLUG, Project, ProjectMembership, project_default_id
from .scenes import Assignment, Scene
from .sessions import Session

__all__ = [
    "DEFAULT_PROJECT_SLUG",
    "Assignment",
    "CvaaCheckpoint",
    "CvaaPreview",
    "CvaaTraining",
    "FrameFootprint",
    "Item",
    "Keyframe",
    "KeyframePlacement",
    "Mark",
    "MediaJob",
    "ModelView",
    "Phrasing",
    "Project",
    "ProjectMembership",
    "SatelliteImage",
    "Scene",
    "Session",
    "TelemetrySample",
    "TelemetryTrack",
    "TrackingJob",
    "Video",
    "ViewsSignal",
    "project_default_id",
]
