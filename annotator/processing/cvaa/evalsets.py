"""Held-out real pairs for `manage.py eval_cvaa`, from the shared test media (SOURCES.md there):

- saro: the Saro roundabout clip (30 frames at 3 fps) on the orthophoto made from its first frame with
  the surveyed control points (as the demo scene is imported). Each later frame's footprint comes from
  its own control-point homography (per-frame marker positions), so frames 1..29 are held out: only
  frame 0 made the map and is a training pair on the platform.
- brighton: 18 nadir photos of Brighton Beach on the orthomosaic of the same flight, placed by their
  GPS, relative altitude and gimbal yaw through a 81-degree 16:9 camera (the footprint test in
  tests/media_tools/cvaa checks these against feature matching).
Nothing here touches the database; the pixels and geometry come from media_tools.
"""

from __future__ import annotations

import csv
import json
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import media_tools
from media_tools import MediaError
from media_tools.cvaa import CameraModel, Pair, footprint_from_georefs, footprint_from_telemetry, load_rgb
from media_tools.geo import georef_from_gcps, georef_from_geotiff, orthophoto_from_frame, read_gcp_csv

SARO = "videos/saro_roundabout_topdown_1080p_3fps.mp4"
SARO_GCPS = "videos/saro_roundabout_gcp_pixels_1080p.csv"
SARO_PER_FRAME = "videos/saro_roundabout_gcp_pixels_perframe_1080p.json"
BRIGHTON = "brighton_beach"
BRIGHTON_CAMERA = CameraModel(hfov_deg=81.0, aspect=16 / 9)


@dataclass
class EvalSet:
    name: str
    image: np.ndarray  # the map, (H, W, 3) uint8
    pairs: list[Pair]
    note: str
    metres_per_px: float  # the map's ground sampling distance, for centre errors in metres


def _need(path: Path) -> Path:
    if not path.exists():
        raise MediaError(f"{path}: missing; point --testdata at the shared test media (see its SOURCES.md)")
    return path


def saro(testdata: Path, *, ffmpeg_bin: str = "ffmpeg") -> EvalSet:
    video = _need(testdata / SARO)
    names = {}
    with _need(testdata / SARO_GCPS).open(newline="") as fh:
        for row in csv.DictReader(fh):
            names[row["point_name"]] = (float(row["latitude"]), float(row["longitude"]))
    per_frame: dict[int, list[list[float]]] = defaultdict(list)
    for p in json.loads(_need(testdata / SARO_PER_FRAME).read_text()):
        if p["point"] in names:
            per_frame[int(p["video_frame"])].append([p["x_1080p"], p["y_1080p"], *names[p["point"]]])
    with tempfile.TemporaryDirectory(prefix="skymark-eval-") as tmp:
        first = media_tools.extract_frame(video, Path(tmp) / "first.png", time_s=0, ffmpeg_bin=ffmpeg_bin)
        ortho_ref, _ = orthophoto_from_frame(first, Path(tmp) / "ortho.tif", gcps=read_gcp_csv(testdata / SARO_GCPS))
        ortho = load_rgb(Path(tmp) / "ortho.tif")
        frames = media_tools.keyframes(video, Path(tmp) / "frames", fps=3.0, ffmpeg_bin=ffmpeg_bin)
        pairs = []
        for frame in frames:
            points = per_frame.get(frame.index, [])
            if frame.index == 0 or len(points) < 4:  # frame 0 made the map; fewer points fit no homography
                continue
            pixels = load_rgb(frame.path)
            fit = georef_from_gcps(points, width=pixels.shape[1], height=pixels.shape[0])
            pairs.append(Pair(pixels, footprint_from_georefs(fit, ortho_ref)))
    note = f"{len(pairs)} frames after the first, per-frame control-point homography onto its orthophoto"
    return EvalSet("saro", ortho, pairs, note, ortho_ref.gsd_m())


def brighton(testdata: Path) -> EvalSet:
    folder = _need(testdata / BRIGHTON)
    ortho = folder / "brighton_beach_ortho_utm15n.tif"
    ref = georef_from_geotiff(_need(ortho))
    pairs = []
    with _need(folder / "frames.csv").open(newline="") as fh:
        for row in csv.DictReader(fh):
            quad = footprint_from_telemetry(
                lat=float(row["lat"]), lon=float(row["lon"]), alt_m=float(row["rel_alt_m"]),
                heading_deg=float(row["gimbal_yaw_deg"]), camera=BRIGHTON_CAMERA, sat_ref=ref,
            )  # fmt: skip
            frame = load_rgb(_need(folder / "frames" / row["file"].replace(".JPG", ".jpg")))
            pairs.append(Pair(frame, quad))
    note = f"{len(pairs)} photos, GPS + altitude + gimbal yaw footprints on the same flight's orthomosaic"
    return EvalSet("brighton", load_rgb(ortho), pairs, note, ref.gsd_m())


LOADERS = {"saro": saro, "brighton": brighton}
