"""Evaluation frames made from real ones with exactly known truth: quarter turns, a camera turned off
nadir about its own centre (a photo re-projected), and oblique views of a map rendered through a pinhole
camera over flat ground.

Each returns a Pair whose quad follows from the source pair's quad by the same exact geometry, so the
new frame's truth is as good as the source's and no better.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .footprints import CameraModel, frame_corners, ground_offsets, quad_area
from .geometry import project
from .pairs import Pair
from .rectify import warp_view


def quad_homography(quad: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The frame px -> map px homography a footprint quad implies (exact for a pinhole over flat ground)."""
    src = frame_corners(*size).astype(np.float32)
    return cv2.getPerspectiveTransform(src, np.asarray(quad, np.float32)).astype(float)


def rotated_pair(pair: Pair, quarter_turns: int) -> Pair:
    """The frame turned clockwise by 90 degrees `quarter_turns` times; the footprint's corners follow."""
    k = quarter_turns % 4
    frame = np.ascontiguousarray(np.rot90(pair.frame, -k))
    # Turning the picture clockwise makes the old bottom-left corner the new top-left.
    return Pair(frame, np.roll(np.asarray(pair.quad, float), k, axis=0))


def _intrinsics(width: float, height: float, hfov_deg: float) -> np.ndarray:
    f = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
    return np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1.0]])


def turned_camera_pair(
    pair: Pair,
    *,
    hfov_deg: float,
    off_nadir_deg: float,
    towards_deg: float,
    out_size: tuple[int, int],
    out_hfov_deg: float,
) -> Pair | None:
    """The view of a camera at the same point as `pair`'s (a nadir photo with `hfov_deg`), turned by
    `off_nadir_deg` towards `towards_deg` (0 = the photo's up, 90 = its right), with a narrower lens
    `out_hfov_deg`. Turning a camera about its centre maps pixels by a homography whatever the scene,
    so the new view is exact; None where it would see past the photo's edges."""
    height, width = pair.frame.shape[:2]
    k_src = _intrinsics(width, height, hfov_deg)
    k_out = _intrinsics(*out_size, out_hfov_deg)
    t, d = math.radians(off_nadir_deg), math.radians(towards_deg)
    # Axis in the image plane, perpendicular to the direction of the turn (x right, y down, z forward).
    axis = np.array([math.cos(d), math.sin(d), 0.0])
    rotation, _ = cv2.Rodrigues(axis * t)
    view_to_src = k_src @ rotation @ np.linalg.inv(k_out)
    corners = project(view_to_src, frame_corners(*out_size))
    if (corners < 0).any() or (corners[:, 0] > width).any() or (corners[:, 1] > height).any():
        return None
    frame = warp_view(pair.frame, view_to_src, out_size)
    truth = quad_homography(pair.quad, (width, height)) @ view_to_src
    return Pair(frame, project(truth, frame_corners(*out_size)))


def oblique_render(
    image: np.ndarray,
    *,
    centre_px: tuple[float, float],
    metres_per_px: float,
    alt_m: float,
    heading_deg: float,
    pitch_deg: float,
    hfov_deg: float,
    out_size: tuple[int, int],
    min_valid: float = 0.85,
) -> Pair | None:
    """What a pinhole camera `alt_m` above the point below it (`centre_px` on the north-up map) would see
    of the flat ground, looking towards `heading_deg` at `pitch_deg`: the map's pixels rendered through
    the exact footprint homography. None when under `min_valid` of the view has map pixels."""
    camera = CameraModel(hfov_deg=hfov_deg, aspect=out_size[0] / out_size[1], pitch_deg=pitch_deg)
    east_north = ground_offsets(camera, heading_deg, alt_m)
    quad = np.asarray(centre_px, float) + east_north * [1, -1] / metres_per_px
    if quad_area(quad) <= 0:
        return None
    homography = quad_homography(quad, out_size)
    frame = warp_view(image, homography, out_size)
    if np.mean(frame.max(axis=2) > 0) < min_valid:
        return None
    return Pair(frame, quad)


def oblique_from_photo(
    pair: Pair,
    *,
    pitch_deg: float,
    heading_deg: float,
    hfov_deg: float,
    alt_px: float,
    out_size: tuple[int, int],
) -> Pair | None:
    """An oblique view rendered from a nadir photo's own pixels: the photo is taken as the flat ground
    seen straight down (a similarity to the ground, exact for a nadir camera over flat ground), and a
    pinhole camera `alt_px` photo-pixels above it looks towards `heading_deg` (clockwise from the photo's
    up) at `pitch_deg`, its view centred on the photo's centre. The truth is the photo's footprint
    carried through the render's homography; None when the view would leave the photo."""
    height, width = pair.frame.shape[:2]
    camera = CameraModel(hfov_deg=hfov_deg, aspect=out_size[0] / out_size[1], pitch_deg=pitch_deg)
    offsets = ground_offsets(camera, heading_deg, alt_px) * [1, -1]  # photo px: x right, y down
    quad = offsets - offsets.mean(axis=0) + [width / 2, height / 2]
    if (quad < 0).any() or (quad[:, 0] > width).any() or (quad[:, 1] > height).any():
        return None
    view_to_photo = quad_homography(quad, out_size)
    frame = warp_view(pair.frame, view_to_photo, out_size)
    truth = quad_homography(pair.quad, (width, height)) @ view_to_photo
    return Pair(frame, project(truth, frame_corners(*out_size)))
