"""Frame -> satellite-pixel homographies from a frame's own control points: the truth an evaluation
projects labels through, and the placement of a nadir frame whose control points are known."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from ..cvaa.footprints import footprint_from_georefs, frame_corners
from ..geo import GeoReference, georef_from_gcps
from ..geo.gcps import read_gcp_csv


def homography_from_gcps(
    gcps: Sequence[Sequence[float]], *, width: int, height: int, image_ref: GeoReference
) -> np.ndarray:
    """3x3 frame pixels -> pixels of the image `image_ref` georeferences, through the control points'
    fit (x, y, lat, lon; a homography from 4 points on, media_tools.geo.georef_from_gcps): the frame's
    corners go to the ground and back into the image, the same path the import's footprint takes
    (media_tools.cvaa.footprint_from_georefs), and four corners fix the homography exactly."""
    frame_ref = georef_from_gcps(gcps, width=width, height=height)
    quad = footprint_from_georefs(frame_ref, image_ref)
    return cv2.getPerspectiveTransform(frame_corners(width, height).astype(np.float32), quad.astype(np.float32))


def per_frame_points(pixels_json: Path) -> dict[int, dict[str, tuple[float, float]]]:
    """Video frame -> {point name: (x, y)} from per-frame detections (a JSON list of {video_frame,
    point, x_1080p, y_1080p})."""
    out: dict[int, dict[str, tuple[float, float]]] = defaultdict(dict)
    for row in json.loads(pixels_json.read_text()):
        out[int(row["video_frame"])][str(row["point"])] = (float(row["x_1080p"]), float(row["y_1080p"]))
    return dict(out)


def named_points(gcps_csv: Path) -> dict[str, tuple[float, float]]:
    """{point_name: (x, y)} of a control-point CSV with names and 1080p pixels (the Saro one)."""
    with gcps_csv.open(newline="", encoding="utf-8-sig") as handle:
        return {r["point_name"]: (float(r["x_px_1080p"]), float(r["y_px_1080p"])) for r in csv.DictReader(handle)}


def shifted_homographies(
    reference: np.ndarray,
    reference_points: dict[str, tuple[float, float]],
    per_frame: dict[int, dict[str, tuple[float, float]]],
) -> dict[int, np.ndarray]:
    """Each frame's homography of a static drone: the reference fit (made from the points' median
    positions) after the frame's own shift, the mean offset of the points it detected from their median
    positions. Why not a fit per frame: where only two markers are found (half of Saro's frames) their
    four corners lie in two tight pairs, and a homography through them is exact there and metres wrong
    elsewhere; a shift needs one point and the drone drifts by a few pixels only (SOURCES.md)."""
    out = {}
    for index, points in per_frame.items():
        common = [n for n in points if n in reference_points]
        if not common:
            continue
        shift = np.mean([np.subtract(points[n], reference_points[n]) for n in common], axis=0)
        to_reference = np.array([[1.0, 0.0, -shift[0]], [0.0, 1.0, -shift[1]], [0.0, 0.0, 1.0]])
        out[index] = np.asarray(reference, float) @ to_reference
    return out


__all__ = ["homography_from_gcps", "named_points", "per_frame_points", "read_gcp_csv", "shifted_homographies"]
