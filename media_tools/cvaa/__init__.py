"""CVAA: a cross-view retriever that places a drone frame on a satellite image (DESIGN.md, "CVAA retrieval
previews"), plus a SIFT baseline and the evaluation that compares them.

Importing this package imports neither torch nor OpenCV nor GDAL: every name loads its submodule on
first use (media_tools/_lazy.py), so web processes that only read results stay light.

Typical use (a worker):
    encoder = CvaaEncoder.from_checkpoint(Path("cvaa.pt"))           # verifies the file's hash
    index = WindowIndex.build(load_rgb(sat_path), encoder, cache_dir=cache)  # cached per image + model
    answer = index.locate(frame, encoder, top_k=5)                    # boxes, scores, heatmap
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from .errors import CheckpointError, DeviceUnavailable

if TYPE_CHECKING:
    from .baseline import SiftLocator
    from .calibration import Calibration, Evidence, evidence, fit_calibration, significant
    from .checkpoint import Checkpoint, checkpoint_bytes, load_checkpoint, save_checkpoint
    from .config import CvaaConfig
    from .encoder import CvaaEncoder, available_devices, pick_device
    from .evaluate import (
        HIT_IOU,
        EvalReport,
        against_baselines,
        calibration_samples,
        centre_errors,
        compare,
        evaluate,
        footprint_size,
        hits,
        random_locator,
        random_windows,
        report_table,
    )
    from .footprints import (
        CameraModel,
        footprint_from_georefs,
        footprint_from_homography,
        footprint_from_telemetry,
        points_in_quad,
        quad_area,
        quad_bbox,
        quad_up_angle,
    )
    from .geometry import GeometricLocator
    from .index import IndexStats, WindowIndex
    from .located import Located
    from .model import CvaaModel, info_nce
    from .pairs import MixedPairs, Pair, PairSource, RealPairs, window_for
    from .placement import Placement
    from .synth import SyntheticPairs
    from .tracking import chain, frame_to_frame
    from .training import TrainResult, train
    from .views import Pyramid, as_rgb8, image_sha256, load_rgb
    from .windows import Windows, WindowSpec, box_iou, make_windows, window_boxes

# name -> submodule, imported on first access: the SIFT baseline and the views need OpenCV and GDAL,
# the model, checkpoints, encoder and training need torch.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "SiftLocator": "baseline",
        "Calibration": "calibration",
        "Evidence": "calibration",
        "evidence": "calibration",
        "fit_calibration": "calibration",
        "significant": "calibration",
        "calibration_samples": "evaluate",
        "CvaaConfig": "config",
        "HIT_IOU": "evaluate",
        "EvalReport": "evaluate",
        "against_baselines": "evaluate",
        "compare": "evaluate",
        "evaluate": "evaluate",
        "centre_errors": "evaluate",
        "footprint_size": "evaluate",
        "random_locator": "evaluate",
        "random_windows": "evaluate",
        "hits": "evaluate",
        "report_table": "evaluate",
        "Placement": "placement",
        "GeometricLocator": "geometry",
        "chain": "tracking",
        "frame_to_frame": "tracking",
        "CameraModel": "footprints",
        "footprint_from_georefs": "footprints",
        "footprint_from_homography": "footprints",
        "footprint_from_telemetry": "footprints",
        "points_in_quad": "footprints",
        "quad_area": "footprints",
        "quad_bbox": "footprints",
        "quad_up_angle": "footprints",
        "IndexStats": "index",
        "WindowIndex": "index",
        "Located": "located",
        "MixedPairs": "pairs",
        "Pair": "pairs",
        "PairSource": "pairs",
        "RealPairs": "pairs",
        "window_for": "pairs",
        "SyntheticPairs": "synth",
        "Pyramid": "views",
        "as_rgb8": "views",
        "image_sha256": "views",
        "load_rgb": "views",
        "Windows": "windows",
        "WindowSpec": "windows",
        "box_iou": "windows",
        "make_windows": "windows",
        "window_boxes": "windows",
        "Checkpoint": "checkpoint",
        "checkpoint_bytes": "checkpoint",
        "load_checkpoint": "checkpoint",
        "save_checkpoint": "checkpoint",
        "CvaaEncoder": "encoder",
        "available_devices": "encoder",
        "pick_device": "encoder",
        "CvaaModel": "model",
        "info_nce": "model",
        "TrainResult": "training",
        "train": "training",
    },
)


__all__ = [
    "HIT_IOU",
    "Calibration",
    "CameraModel",
    "Checkpoint",
    "CheckpointError",
    "CvaaConfig",
    "CvaaEncoder",
    "CvaaModel",
    "DeviceUnavailable",
    "EvalReport",
    "Evidence",
    "GeometricLocator",
    "IndexStats",
    "Located",
    "MixedPairs",
    "Pair",
    "PairSource",
    "Placement",
    "Pyramid",
    "RealPairs",
    "SiftLocator",
    "SyntheticPairs",
    "TrainResult",
    "WindowIndex",
    "WindowSpec",
    "Windows",
    "against_baselines",
    "as_rgb8",
    "available_devices",
    "box_iou",
    "calibration_samples",
    "centre_errors",
    "chain",
    "checkpoint_bytes",
    "compare",
    "evaluate",
    "evidence",
    "fit_calibration",
    "footprint_from_georefs",
    "footprint_from_homography",
    "footprint_from_telemetry",
    "footprint_size",
    "frame_to_frame",
    "hits",
    "image_sha256",
    "info_nce",
    "load_checkpoint",
    "load_rgb",
    "make_windows",
    "pick_device",
    "points_in_quad",
    "quad_area",
    "quad_bbox",
    "quad_up_angle",
    "random_locator",
    "random_windows",
    "report_table",
    "save_checkpoint",
    "significant",
    "train",
    "window_boxes",
    "window_for",
]
