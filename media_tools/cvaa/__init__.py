"""CVAA: a cross-view retriever that places a drone frame on a satellite image (DESIGN.md, "CVAA retrieval
previews"), plus a SIFT baseline and the evaluation that compares them.

Importing this package does not import torch: the names that need it (the model, checkpoints, the
encoder, training) load on first use, so web processes that only read results stay light.

Typical use (a worker):
    encoder = CvaaEncoder.from_checkpoint(Path("cvaa.pt"))           # verifies the file's hash
    index = WindowIndex.build(load_rgb(sat_path), encoder, cache_dir=cache)  # cached per image + model
    answer = index.locate(frame, encoder, top_k=5)                    # boxes, scores, heatmap
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .baseline import SiftLocator
from .config import CvaaConfig
from .errors import CheckpointError
from .evaluate import HIT_IOU, EvalReport, compare, evaluate, hits, report_table
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
from .index import IndexStats, WindowIndex
from .located import Located
from .pairs import MixedPairs, Pair, PairSource, RealPairs, window_for
from .synth import SyntheticPairs
from .views import Pyramid, as_rgb8, image_sha256, load_rgb
from .windows import Windows, WindowSpec, box_iou, make_windows, window_boxes

if TYPE_CHECKING:
    from .checkpoint import Checkpoint, checkpoint_bytes, load_checkpoint, save_checkpoint
    from .encoder import CvaaEncoder
    from .model import CvaaModel, info_nce
    from .training import TrainResult, train

# name -> submodule that imports torch; resolved by __getattr__ on first access.
_LAZY = {
    "Checkpoint": "checkpoint",
    "checkpoint_bytes": "checkpoint",
    "load_checkpoint": "checkpoint",
    "save_checkpoint": "checkpoint",
    "CvaaEncoder": "encoder",
    "CvaaModel": "model",
    "info_nce": "model",
    "TrainResult": "training",
    "train": "training",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "HIT_IOU",
    "CameraModel",
    "Checkpoint",
    "CheckpointError",
    "CvaaConfig",
    "CvaaEncoder",
    "CvaaModel",
    "EvalReport",
    "IndexStats",
    "Located",
    "MixedPairs",
    "Pair",
    "PairSource",
    "Pyramid",
    "RealPairs",
    "SiftLocator",
    "SyntheticPairs",
    "TrainResult",
    "WindowIndex",
    "WindowSpec",
    "Windows",
    "as_rgb8",
    "box_iou",
    "checkpoint_bytes",
    "compare",
    "evaluate",
    "footprint_from_georefs",
    "footprint_from_homography",
    "footprint_from_telemetry",
    "hits",
    "image_sha256",
    "info_nce",
    "load_checkpoint",
    "load_rgb",
    "make_windows",
    "points_in_quad",
    "quad_area",
    "quad_bbox",
    "quad_up_angle",
    "report_table",
    "save_checkpoint",
    "train",
    "window_boxes",
    "window_for",
]
