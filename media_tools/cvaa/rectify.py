"""Views of a frame seen another way: resampling through a homography (`warp_view`) and the nadir view an
oblique frame would give (`oblique_rectifier`), used by the geometric locator's tilt hypotheses and by the
evaluation's rendered oblique views."""

from __future__ import annotations

import math

import cv2
import numpy as np

from .footprints import frame_corners

# OpenCV samples at pixel centres; placements use corner-convention pixels (0 is the left edge).
_HALF = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])


def warp_view(image: np.ndarray, homography: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The (width, height) = `size` view whose pixels come from `image` through `homography` (view px ->
    image px, corner convention); outside the image is black."""
    centred = np.linalg.inv(_HALF) @ homography @ _HALF
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    return cv2.warpPerspective(image, centred, size, flags=flags, borderMode=cv2.BORDER_CONSTANT)


def oblique_rectifier(
    width: int, height: int, tilt_deg: float, hfov_deg: float, *, side: int
) -> tuple[np.ndarray, tuple[int, int]] | None:
    """(rectified px -> frame px homography, rectified size): the nadir view a camera with `hfov_deg`,
    pitched `tilt_deg` off nadir with the frame's top farther away, would give after turning down about
    its own centre, scaled to `side` px on its longer side; None when the frame's top would reach the
    horizon."""
    f = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
    k = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1.0]])
    t = math.radians(tilt_deg)
    # Virtual (nadir) rays -> the frame camera's rays: nadir lies towards the frame's bottom (+y).
    rotation = np.array([[1, 0, 0], [0, math.cos(t), math.sin(t)], [0, -math.sin(t), math.cos(t)]])
    virtual_to_frame = k @ rotation @ np.linalg.inv(k)
    back = np.column_stack([frame_corners(width, height), np.ones(4)]) @ np.linalg.inv(virtual_to_frame).T
    if not np.all(back[:, 2] > 1e-6):
        return None
    corners = back[:, :2] / back[:, 2:3]
    low, high = corners.min(axis=0), corners.max(axis=0)
    zoom = side / max(float(np.max(high - low)), 1.0)
    fit = np.array([[1 / zoom, 0, low[0]], [0, 1 / zoom, low[1]], [0, 0, 1.0]])  # rectified -> virtual
    size = (max(1, round((high - low)[0] * zoom)), max(1, round((high - low)[1] * zoom)))
    return virtual_to_frame @ fit, size
