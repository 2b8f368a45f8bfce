"""The Saro roundabout clip set up for measuring assisted trajectories (bench/assist.py and, for the
parts the platform does not hold, manage.py eval_assist): its frames, the cars' truth paths, every
frame's control-point homography onto the map image, and the map image made as the demo import makes it.
Files are those of ../shared/testdata/videos (SOURCES.md there)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..cvaa.placement import CONTROL_POINTS, Placement
from ..geo import GeoReference, georef_from_gcps
from .control import homography_from_gcps, named_points, per_frame_points, read_gcp_csv, shifted_homographies
from .evaluate import load_labelled_clip
from .projection import INTERPOLATE, NEAREST, PlacedKeyframe
from .tracker import Frame
from .truth import TruthPath

SARO = "saro_roundabout_topdown_1080p_3fps.mp4"
LABELS = "saro_roundabout_labels"
GCPS = "saro_roundabout_gcp_pixels_1080p.csv"
GCPS_PER_FRAME = "saro_roundabout_gcp_pixels_perframe_1080p.json"
SURVEY = "saro_roundabout_gcp_aruco_wgs84.csv"


def label_name(i: int) -> str:
    """Video frame i is every tenth frame of the source clip (SOURCES.md)."""
    return f"frame_{10 * i:06d}.txt"


@dataclass
class SaroSetup:
    frames: list[Frame]
    paths: list[TruthPath]
    truth: dict[int, np.ndarray]  # video frame -> its control-point homography onto the map image
    placements: dict[int, Placement]  # the same as placements, with the fit's RMS as their uncertainty
    metres_per_px: float
    keyframe_fps: float

    def keyframes(self, indices: list[int]) -> list[PlacedKeyframe]:
        return [PlacedKeyframe(self.frames[i].time_s, self.placements[i]) for i in indices if i in self.placements]

    def keyframe_indices(self) -> list[int]:
        """The frames nearest the platform's keyframe times (k / keyframe_fps)."""
        times = np.array([f.time_s for f in self.frames])
        grid = np.arange(0.0, times[-1] + 1e-6, 1.0 / self.keyframe_fps)
        return sorted({int(np.argmin(abs(times - t))) for t in grid})

    def chained(self, indices: list[int]) -> list[PlacedKeyframe]:
        """The keyframes placed as the platform places frames without control points of their own:
        chained from frame 0's control-point placement through the keyframes (media_tools.cvaa.chain,
        frame-to-frame homographies), unplaced where the chain breaks."""
        from ..cvaa.tracking import chain

        rgb = [np.repeat(self.frames[i].gray[:, :, None], 3, axis=2) for i in indices]
        placed = chain(rgb, {0: self.placements[indices[0]]})
        return [PlacedKeyframe(self.frames[i].time_s, p) for i, p in zip(indices, placed, strict=True) if p]

    def rows(self, *, chained: bool = True) -> dict[str, tuple[list[PlacedKeyframe], str]]:
        every = self.keyframes(list(range(len(self.frames))))
        kf = self.keyframes(self.keyframe_indices())
        extra = {}
        if chained:
            extra[f"keyframes {self.keyframe_fps:g} fps chained from frame 0"] = (
                self.chained(self.keyframe_indices()),
                INTERPOLATE,
            )
        return {
            **extra,
            f"keyframes {self.keyframe_fps:g} fps, interpolated": (kf, INTERPOLATE),
            f"keyframes {self.keyframe_fps:g} fps, nearest": (kf, NEAREST),
            "per-frame control points": (every, INTERPOLATE),
            "import only (frame 0)": (self.keyframes([0]), NEAREST),
        }


def map_image(videos: Path, work: Path) -> GeoReference:
    """The demo import's map image of Saro: the frame at 0 s warped north-up with the six control points
    (annotator.intake.services does the same with the same functions)."""
    from ..frames import extract_frame
    from ..geo import orthophoto_from_frame

    frame = work / "saro_keyframe.png"
    extract_frame(videos / SARO, frame, time_s=0.0)
    ref, _ = orthophoto_from_frame(frame, work / "saro_orthophoto.tif", gcps=read_gcp_csv(videos / GCPS))
    return ref


def saro_setup(
    videos: Path, work: Path, *, keyframe_fps: float = 1.0, image_ref: GeoReference | None = None
) -> SaroSetup:
    """Everything above; `image_ref`: the map image's georeference when it exists already (eval_assist
    reads the imported scene's), else it is made in `work`."""
    frames, paths = load_labelled_clip(videos / SARO, videos / LABELS, label_name=label_name)
    ref = image_ref or map_image(videos, work)
    h, w = frames[0].gray.shape
    gcps = read_gcp_csv(videos / GCPS)
    reference = homography_from_gcps(gcps, width=w, height=h, image_ref=ref)
    truth = shifted_homographies(reference, named_points(videos / GCPS), per_frame_points(videos / GCPS_PER_FRAME))
    truth = {i: hom for i, hom in truth.items() if i < len(frames)}
    # Placed as the control-point placement of a frame would be, with the fit's RMS as its uncertainty.
    rms_px = (georef_from_gcps(gcps, width=w, height=h).rms_m or 0.0) / ref.gsd_m()
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
    placements = {}
    for index, hom in truth.items():
        q = np.column_stack([corners, np.ones(4)]) @ hom.T
        placements[index] = Placement(CONTROL_POINTS, q[:, :2] / q[:, 2:3], (w, h), 1.0, rms_px, hom)
    return SaroSetup(frames, paths, truth, placements, ref.gsd_m(), keyframe_fps)
