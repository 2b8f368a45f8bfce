"""A video track onto the satellite image through the keyframes' placements (media_tools.cvaa.Placement).

Keyframes are placed, video frames in between are not. A point at time t is projected through the
placed keyframes just before and after t, and the two map positions are blended linearly in time
("interpolate"), or through the nearest placed keyframe alone ("nearest"). Interpolating follows a
drone that moves or turns steadily between keyframes; for a static drone both agree. Where the two
neighbours disagree, half their distance is added to the vertex's uncertainty, so a drone moving fast
between sparse keyframes shows up as a wide uncertainty rather than a confident wrong point. Farther
than `max_gap_s` from any placed keyframe a point is not projected (reported lost), not extrapolated.

Uncertainty of a vertex in satellite pixels, combined as independent errors:
  the placements' own corner error (`uncertainty_px`, blended like the point),
  the tracker's localisation error in frame pixels, scaled by the homography's local scale: `track_px`
    (one pixel: the sub-pixel peak's error on target) combined with the frame's own back-check error
    (`TrackedFrame.fb_px`, tracker.py), so a vertex the tracker was unsure of shows a wider circle,
  half the neighbours' disagreement (above);
then in metres when the satellite image's metres per pixel is known.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..cvaa.placement import Placement

if TYPE_CHECKING:  # the tracker imports OpenCV; a web process projects nothing but reads this module
    from .tracker import TrackedFrame

INTERPOLATE, NEAREST = "interpolate", "nearest"


@dataclass(frozen=True)
class PlacedKeyframe:
    time_s: float
    placement: Placement


@dataclass(frozen=True)
class MapVertex:
    time_s: float
    x: float | None  # satellite pixels; None: lost in the video or no placement near enough
    y: float | None
    source: str  # the placement source(s) it went through, "lost" or "unplaced"
    uncertainty_px: float | None
    uncertainty_m: float | None


def _local_scale(h: np.ndarray, x: float, y: float) -> float:
    """Satellite pixels per frame pixel at (x, y): the root of the homography Jacobian's determinant."""
    eps = 0.5
    p = np.array([[x, y], [x + eps, y], [x, y + eps]])
    q = np.column_stack([p, np.ones(3)]) @ h.T
    q = q[:, :2] / q[:, 2:3]
    jac = np.column_stack([(q[1] - q[0]) / eps, (q[2] - q[0]) / eps])
    return float(np.sqrt(abs(np.linalg.det(jac))))


def _through(pk: PlacedKeyframe, x: float, y: float, video_size: tuple[int, int]) -> tuple[np.ndarray, float]:
    """(map point, track scale) through one keyframe's placement; video pixels are rescaled to the
    keyframe image's size first (keyframes may be stored smaller than the video)."""
    fw, fh = pk.placement.frame_size
    sx, sy = fw / video_size[0], fh / video_size[1]
    point = pk.placement.project(np.array([[x * sx, y * sy]]))[0]
    assert pk.placement.homography is not None
    scale = _local_scale(np.asarray(pk.placement.homography, float), x * sx, y * sy) * float(np.sqrt(sx * sy))
    return point, scale


def project_track(
    frames: Sequence[TrackedFrame],
    keyframes: Sequence[PlacedKeyframe],
    *,
    video_size: tuple[int, int],
    metres_per_px: float | None,
    mode: str = INTERPOLATE,
    max_gap_s: float = 5.0,
    track_px: float = 1.0,
) -> list[MapVertex]:
    """One MapVertex per tracked frame, in the frames' order (module doc). `keyframes`: placements
    with a homography (others cannot project a point; the caller leaves them out). Raises ValueError
    for an unknown mode."""
    if mode not in (INTERPOLATE, NEAREST):
        raise ValueError(f"unknown projection mode {mode!r}; use {INTERPOLATE!r} or {NEAREST!r}")
    placed = sorted((k for k in keyframes if k.placement.homography is not None), key=lambda k: k.time_s)
    times = [k.time_s for k in placed]
    out = []
    for f in frames:
        if f.lost:
            out.append(MapVertex(f.time_s, None, None, "lost", None, None))
            continue
        assert f.x is not None and f.y is not None
        own_px = float(np.hypot(track_px, f.fb_px)) if f.fb_px is not None else track_px
        out.append(_vertex(f.time_s, f.x, f.y, placed, times, video_size, metres_per_px, mode, max_gap_s, own_px))
    return out


def _neighbours(placed: list[PlacedKeyframe], times: list[float], t: float, max_gap_s: float) -> list[PlacedKeyframe]:
    i = bisect.bisect_left(times, t)
    before = placed[i - 1] if i > 0 else None
    after = placed[i] if i < len(placed) else None
    if after is not None and abs(after.time_s - t) < 1e-6:
        return [after]
    return [k for k in (before, after) if k is not None and abs(k.time_s - t) <= max_gap_s]


def _vertex(
    t: float,
    x: float,
    y: float,
    placed: list[PlacedKeyframe],
    times: list[float],
    video_size: tuple[int, int],
    metres_per_px: float | None,
    mode: str,
    max_gap_s: float,
    track_px: float,
) -> MapVertex:
    near = _neighbours(placed, times, t, max_gap_s)
    if not near:
        return MapVertex(t, None, None, "unplaced", None, None)
    if mode == NEAREST or len(near) == 1:
        near = [min(near, key=lambda k: abs(k.time_s - t))]
        weights = [1.0]
    else:
        span = near[1].time_s - near[0].time_s
        w_after = (t - near[0].time_s) / span
        weights = [1 - w_after, w_after]
    through = [_through(k, x, y, video_size) for k in near]
    point = np.sum([w * p for w, (p, _) in zip(weights, through, strict=True)], axis=0)
    place_px = sum(w * k.placement.uncertainty_px for w, k in zip(weights, near, strict=True))
    track = sum(w * s for w, (_, s) in zip(weights, through, strict=True)) * track_px
    spread = float(np.linalg.norm(through[0][0] - through[-1][0])) / 2
    sigma = float(np.sqrt(place_px**2 + track**2 + spread**2))
    source = "+".join(dict.fromkeys(k.placement.source for k in near))
    metres = sigma * metres_per_px if metres_per_px else None
    return MapVertex(t, float(point[0]), float(point[1]), source, sigma, metres)
