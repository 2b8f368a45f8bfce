"""Held-out real pairs for `manage.py eval_cvaa`, from the shared test media (SOURCES.md there). None of
these frames is a training pair: the platform trains on its own scenes' keyframes and on
self-supervised warps of the map, and these sets are built here, at evaluation time.

- saro (nadir): the Saro roundabout clip (30 frames at 3 fps) on the orthophoto made from its first
  frame with the surveyed control points (as the demo scene is imported). A later frame's truth is its
  own control-point homography, kept only when it is reliable: at least 5 control points (so the fit is
  over-determined and its residual checks it) with an RMS residual under 0.5 m. Frames with exactly 4
  points fit exactly whatever their errors, and their footprints jump by up to 1,480 map px (160 m) at
  the corners while the drone hovers (IoU 0.34 with the chained placement on frame 6), so they are
  dropped; frames 9 and 28 have 2 points. 12 of frames 1-29 remain. Frame 0 made the map: not scored.
- brighton (nadir): 18 photos of Brighton Beach on the orthomosaic of the same flight, placed by their
  GPS, relative altitude and gimbal yaw through an 81-degree 16:9 camera (GPS error of a few metres;
  the six photos of the return line have their yaw turned by 180 degrees, see BRIGHTON_YAW_FLIPPED).
- rotated (nadir): the brighton and saro frames turned by 90, 180 and 270 degrees (the 0-degree copies
  are those sets), footprints turned with them: exact.
- oblique: two kinds, both with exact geometry, neither a real oblique photograph (there is none in
  the shared media with a map of its ground): (a) oblique views rendered from the Brighton photos' own
  pixels (each nadir photo taken as flat ground seen straight down, a camera looking across it at the
  steepest of 55, 50 and 45 degrees off nadir that stays inside the photo, 50 on all 18; the truth is
  the photo's GPS footprint carried through the render); (b) the Brighton orthomosaic rendered through
  a pinhole camera looking 40-55 degrees off nadir over flat ground (the map's own pixels: a test of
  perspective alone).
Nothing here touches the database; the pixels and geometry come from media_tools.
"""

from __future__ import annotations

import csv
import json
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
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
# Saro truth: a control-point homography is trusted with at least this many points and this residual.
SARO_MIN_POINTS = 5
SARO_MAX_RMS_M = 0.5
# Photos of the return flight line whose recorded gimbal yaw (about -132) is 180 degrees from where
# their picture's up points (about +48, north-east, as on the other two lines): matching each photo on
# the map turns it by 178-183 degrees from the yaw on exactly these six and by 2-4 degrees elsewhere.
# The footprint's box is the same either way; its corner order (which way is up) is corrected here.
BRIGHTON_YAW_FLIPPED = {"DJI_0024.JPG", "DJI_0025.JPG", "DJI_0026.JPG", "DJI_0027.JPG", "DJI_0028.JPG", "DJI_0029.JPG"}


@dataclass
class EvalSet:
    name: str
    image: np.ndarray  # the map, (H, W, 3) uint8
    pairs: list[Pair]
    note: str
    metres_per_px: float  # the map's ground sampling distance, for centre errors in metres
    kind: str = "nadir"  # or "oblique": the goals differ (90 % and 70 % top-1 hits)
    # A video the pairs come from, for chaining: every frame in order, and each pair's index in it.
    clip: list[np.ndarray] = field(default_factory=list)
    clip_index: list[int] = field(default_factory=list)


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
        clip = [load_rgb(frame.path) for frame in frames]
    pairs, index, dropped = [], [], 0
    for i, pixels in enumerate(clip):
        points = per_frame.get(i, [])
        if i == 0:  # frame 0 made the map
            continue
        fit = georef_from_gcps(points, width=pixels.shape[1], height=pixels.shape[0]) if len(points) >= 4 else None
        if fit is None or len(points) < SARO_MIN_POINTS or (fit.rms_m or 0.0) > SARO_MAX_RMS_M:
            dropped += 1
            continue
        pairs.append(Pair(pixels, footprint_from_georefs(fit, ortho_ref)))
        index.append(i)
    note = (
        f"{len(pairs)} frames after the first with a reliable control-point homography "
        f"(>= {SARO_MIN_POINTS} points, RMS < {SARO_MAX_RMS_M} m; {dropped} dropped) onto its orthophoto"
    )
    return EvalSet("saro", ortho, pairs, note, ortho_ref.gsd_m(), clip=clip, clip_index=index)


def brighton(testdata: Path) -> EvalSet:
    folder = _need(testdata / BRIGHTON)
    ortho = folder / "brighton_beach_ortho_utm15n.tif"
    ref = georef_from_geotiff(_need(ortho))
    pairs = []
    with _need(folder / "frames.csv").open(newline="") as fh:
        for row in csv.DictReader(fh):
            quad = footprint_from_telemetry(
                lat=float(row["lat"]), lon=float(row["lon"]), alt_m=float(row["rel_alt_m"]),
                heading_deg=float(row["gimbal_yaw_deg"]) + (180.0 if row["file"] in BRIGHTON_YAW_FLIPPED else 0.0),
                camera=BRIGHTON_CAMERA, sat_ref=ref,
            )  # fmt: skip
            frame = load_rgb(_need(folder / "frames" / row["file"].replace(".JPG", ".jpg")))
            pairs.append(Pair(frame, quad))
    note = f"{len(pairs)} photos, GPS + altitude + gimbal yaw footprints on the same flight's orthomosaic"
    clip = [p.frame for p in pairs]
    return EvalSet("brighton", load_rgb(ortho), pairs, note, ref.gsd_m(), clip=clip, clip_index=list(range(len(pairs))))


def rotated(testdata: Path) -> list[EvalSet]:
    """The brighton and saro frames turned by 90, 180 and 270 degrees, one set per map."""
    from media_tools.cvaa.evalviews import rotated_pair

    out = []
    for base in (brighton(testdata), saro(testdata)):
        pairs = [rotated_pair(p, k) for k in (1, 2, 3) for p in base.pairs]
        note = f"{len(pairs)} = the {len(base.pairs)} {base.name} frames turned by 90, 180 and 270 degrees"
        out.append(EvalSet(f"rotated {base.name}", base.image, pairs, note, base.metres_per_px))
    return out


def oblique(testdata: Path) -> list[EvalSet]:
    """Brighton photos with the camera turned off nadir, and oblique renders of the Brighton map."""
    from media_tools.cvaa.evalviews import oblique_from_photo, oblique_render

    base = brighton(testdata)
    views, angles = [], []
    for i, pair in enumerate(base.pairs):
        # Along the photo's long side, alternately left and right; the steepest view that fits in it.
        for pitch in (-35.0, -40.0, -45.0):
            made = oblique_from_photo(
                pair, pitch_deg=pitch, heading_deg=90.0 + 180.0 * (i % 2), hfov_deg=50.0, alt_px=300.0,
                out_size=(640, 360),
            )  # fmt: skip
            if made is not None:
                views.append(made)
                angles.append(90 + pitch)
                break
    low, high = (min(angles), max(angles)) if angles else (0.0, 0.0)
    span = f"{low:.0f}" if low == high else f"{low:.0f}-{high:.0f}"
    note = (
        f"{len(views)} oblique views rendered from the Brighton photos' own pixels, {span} degrees off nadir "
        "(50-degree lens), truth: the photo's GPS footprint carried through the render"
    )
    sets = [EvalSet("oblique photo views", base.image, views, note, base.metres_per_px, kind="oblique")]
    height, width = base.image.shape[:2]
    renders = []
    for j, (cx, cy) in enumerate([(x, y) for y in (0.35, 0.5, 0.65) for x in (0.3, 0.45, 0.6, 0.75)]):
        made = oblique_render(
            base.image, centre_px=(cx * width, cy * height), metres_per_px=base.metres_per_px, alt_m=15.0,
            heading_deg=(40.0 + 97.0 * j) % 360, pitch_deg=(-50.0, -40.0, -35.0)[j % 3], hfov_deg=60.0,
            out_size=(800, 450),
        )  # fmt: skip
        if made is not None:
            renders.append(made)
    note = f"{len(renders)} views of the Brighton map through a 60-degree camera 40-55 degrees off nadir"
    sets.append(EvalSet("oblique map renders", base.image, renders, note, base.metres_per_px, kind="oblique"))
    return sets


def load(name: str, testdata: Path) -> list[EvalSet]:
    """The sets a name on the command line stands for."""
    if name == "saro":
        return [saro(testdata)]
    if name == "brighton":
        return [brighton(testdata)]
    return rotated(testdata) if name == "rotated" else oblique(testdata)


LOADERS = {"saro": saro, "brighton": brighton, "rotated": rotated, "oblique": oblique}
