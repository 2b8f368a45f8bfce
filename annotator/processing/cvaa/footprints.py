"""Where each keyframe of a scene looks on a satellite image, from the best source the scene has:

1. `homography` / `same_frame`: the image was made from that very frame at import (an orthophoto warped
   with control points, or the frame used as the image) - exact, but only for that frame;
2. `telemetry`: the drone's position, height and heading at the keyframe's time, through a pinhole
   camera (settings.SKYMARK_CVAA_CAMERA_*) onto a georeferenced image - as good as the GPS, the
   height above take-off (taken as height above flat ground) and the assumed camera.
The CVAA retriever's own box is the fallback when neither exists (selectors.py adds it).
Training uses the same footprints as real pairs, so one module decides what counts as known.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from django.conf import settings

from annotator.models import FrameFootprint, Keyframe, SatelliteImage, Scene, TelemetrySample, TelemetryTrack, Video
from media_tools import MediaError
from media_tools.cvaa import CameraModel, footprint_from_telemetry
from media_tools.geo import GeoReference

SOURCE_LABELS = {
    FrameFootprint.Source.HOMOGRAPHY: "homography (control points)",
    FrameFootprint.Source.SAME_FRAME: "same frame as the image",
    "telemetry": "telemetry (GPS, height above take-off, heading)",
    "cvaa": "CVAA retrieval",
}
# A telemetry sample this far (s) from a keyframe still places it (tracks are sampled at 1-10 Hz).
TELEMETRY_GAP_S = 1.0


@dataclass(frozen=True)
class Footprint:
    quad: list[list[float]]  # TL, TR, BR, BL of the frame in satellite pixels
    source: str

    @property
    def label(self) -> str:
        return SOURCE_LABELS.get(self.source, self.source)


def _same_time(video: Video) -> float:
    """Keyframe times are exact presentation times; a footprint's time matches within half a frame."""
    return 0.5 / video.fps if video.fps else 0.02


def frame_footprint_record(
    *, scene: Scene, image: SatelliteImage, time_s: float, quad: np.ndarray, source: str
) -> None:
    """Remember where the frame at `time_s` lies on `image` (intake calls this when it makes the image
    from the frame). Part of the caller's transaction."""
    FrameFootprint.objects.update_or_create(
        scene=scene,
        satellite_image=image,
        time_s=round(float(time_s), 4),
        defaults={"quad": np.round(np.asarray(quad, float), 2).tolist(), "source": source},
    )


def camera_for(video: Video) -> CameraModel | None:
    """The assumed camera with the video's own aspect (as displayed, rotation applied)."""
    if not (video.width and video.height):
        return None
    w, h = (video.height, video.width) if video.rotation in (90, 270) else (video.width, video.height)
    return CameraModel(
        hfov_deg=settings.SKYMARK_CVAA_CAMERA_HFOV_DEG, aspect=w / h, pitch_deg=settings.SKYMARK_CVAA_CAMERA_PITCH_DEG
    )


def _interpolate(samples: Sequence[TelemetrySample], times: list[float], t: float) -> tuple[float, ...] | None:
    """(lat, lon, height_m, heading_deg) at t, linear between the neighbouring samples (heading the
    short way round); None outside the track, or where the height above take-off or the heading is
    missing (an altitude above sea level is no height above the ground)."""
    i = bisect.bisect_left(times, t)
    if i == 0 or i == len(times):
        near = samples[0] if i == 0 else samples[-1]
        if abs(near.time_s - t) > TELEMETRY_GAP_S:
            return None
        a = b = near
    else:
        a, b = samples[i - 1], samples[i]
        if min(t - a.time_s, b.time_s - t) > TELEMETRY_GAP_S:
            return None
    if None in (a.height_m, b.height_m, a.heading_deg, b.heading_deg):
        return None
    f = 0.0 if b.time_s == a.time_s else (t - a.time_s) / (b.time_s - a.time_s)
    turn = ((b.heading_deg or 0) - (a.heading_deg or 0) + 180) % 360 - 180
    return (
        a.lat + f * (b.lat - a.lat),
        a.lon + f * (b.lon - a.lon),
        (a.height_m or 0) + f * ((b.height_m or 0) - (a.height_m or 0)),
        ((a.heading_deg or 0) + f * turn) % 360,
    )


def _telemetry_footprints(
    video: Video, image: SatelliteImage, track: TelemetryTrack | None, keyframes: Sequence[Keyframe]
) -> dict[int, Footprint]:
    camera = camera_for(video)
    if track is None or camera is None or not image.georef:
        return {}
    samples = sorted(track.samples.all(), key=lambda s: s.time_s)  # prefetched by the caller
    if not samples:
        return {}
    ref = GeoReference.from_dict(image.georef)
    times = [s.time_s for s in samples]
    out = {}
    for kf in keyframes:
        at = _interpolate(samples, times, kf.time_s)
        if at is None or not at[2] > 0:
            continue
        lat, lon, alt, heading = at
        try:
            quad = footprint_from_telemetry(
                lat=lat, lon=lon, alt_m=alt, heading_deg=heading, camera=camera, sat_ref=ref
            )
        except MediaError:
            continue  # a camera that sees the horizon has no footprint
        if np.all(np.isfinite(quad)):
            out[kf.index] = Footprint(np.round(quad, 2).tolist(), "telemetry")
    return out


def keyframe_footprints(
    *,
    video: Video,
    image: SatelliteImage,
    keyframes: Sequence[Keyframe],
    anchors: Sequence[FrameFootprint],
    track: TelemetryTrack | None,
) -> dict[int, Footprint]:
    """Keyframe index -> its footprint on `image` from the best known source (module doc); keyframes
    with none are absent. `anchors`: the scene's FrameFootprint rows; `track` with samples prefetched."""
    out = _telemetry_footprints(video, image, track, keyframes)
    tolerance = _same_time(video)
    for anchor in anchors:
        if anchor.satellite_image_id != image.id or not keyframes:
            continue
        nearest = min(keyframes, key=lambda k: abs(k.time_s - anchor.time_s))
        if math.isclose(nearest.time_s, anchor.time_s, abs_tol=tolerance):
            out[nearest.index] = Footprint(anchor.quad, anchor.source)
    return out


def scene_footprints(*, scene: Scene, image: SatelliteImage, keyframes: Sequence[Keyframe]) -> dict[int, Footprint]:
    """keyframe_footprints with the scene's own anchors and telemetry (two or three queries)."""
    anchors = list(FrameFootprint.objects.filter(scene=scene, satellite_image=image))
    track = TelemetryTrack.objects.filter(scene=scene).prefetch_related("samples").first()
    return keyframe_footprints(video=scene.video, image=image, keyframes=keyframes, anchors=anchors, track=track)
