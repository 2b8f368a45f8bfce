"""Per-keyframe CVAA previews of one scene: the `cvaa` job's work.

For each satellite image of the scene, the window index (every window's embedding) is built once per
image and model and kept in settings.SKYMARK_CVAA_CACHE_DIR; media_tools.cvaa names the cache file by
the image's pixel digest and the weights' digest, so a changed image or checkpoint never reuses stale
embeddings, and a second run over the same scene embeds no window at all. Each keyframe then costs one
forward pass (in batches) and one matrix product per image.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from django.conf import settings
from django.db import transaction

from annotator.models import CvaaCheckpoint, CvaaPreview, Keyframe, SatelliteImage, Scene
from annotator.storage import local_copy
from media_tools.cvaa.calibration import Calibration
from media_tools.cvaa.located import Located

from .checkpoints import encoder_for

if TYPE_CHECKING:
    # OpenCV and GDAL: imported where a worker reads pixels, not by the web processes that import this.
    from media_tools.cvaa import IndexStats, WindowIndex

# Keyframes decoded and embedded at a time: bounds memory on long videos, fills a GPU batch.
FRAME_BATCH = 64
# The stored heatmap is at most this many cells on its longer side (the full one can be 64).
HEATMAP_CELLS = 16


@dataclass
class PreviewRun:
    """What one run did, from the library's own counters (tests and the job's detail read them)."""

    keyframes: int = 0
    images: int = 0
    device: str = ""
    index_stats: list[IndexStats] = field(default_factory=list)
    windows_embedded: int = 0
    frames_embedded: int = 0

    def summary(self, checkpoint: CvaaCheckpoint) -> str:
        cached = sum(s.loaded_from_cache for s in self.index_stats)
        windows = f"{self.windows_embedded} windows embedded" if self.windows_embedded else "windows from cache"
        if self.windows_embedded and cached:
            windows += f", {cached} image(s) from cache"
        return (
            f"{self.keyframes} keyframes placed on {self.images} image(s) with checkpoint "
            f"{checkpoint.sha256[:8]} on {self.device}; {windows}"
        )


def _frames(keyframes: Sequence[Keyframe]) -> Iterator[tuple[list[Keyframe], list[np.ndarray]]]:
    from media_tools.cvaa import load_rgb

    for start in range(0, len(keyframes), FRAME_BATCH):
        chunk = list(keyframes[start : start + FRAME_BATCH])
        pixels = []
        for kf in chunk:
            with local_copy(kf.image.name or "") as path:
                pixels.append(load_rgb(path))
        yield chunk, pixels


def heatmap_summary(located: Located) -> dict:
    """The heatmap max-pooled to at most HEATMAP_CELLS cells a side, 3 decimals: enough for an overlay."""
    heat = located.heatmap
    if heat is None or heat.size == 0:
        return {}
    step = max(1, math.ceil(max(heat.shape) / HEATMAP_CELLS))
    rows, cols = math.ceil(heat.shape[0] / step), math.ceil(heat.shape[1] / step)
    padded = np.full((rows * step, cols * step), -np.inf, dtype=float)
    padded[: heat.shape[0], : heat.shape[1]] = heat
    pooled = padded.reshape(rows, step, cols, step).max(axis=(1, 3))
    return {
        "cell_px": round(located.heatmap_cell_px * step, 2),
        "rows": rows,
        "cols": cols,
        "values": np.round(pooled, 3).tolist(),
    }


def calibration_of(checkpoint: CvaaCheckpoint) -> Calibration | None:
    """The checkpoint's calibration (fitted on held-out scenes when it was trained), or None."""
    data = (checkpoint.metrics or {}).get("calibration")
    if not isinstance(data, dict):
        return None
    try:
        return Calibration.from_dict(data)
    except ValueError:
        return None


def _row(
    kf: Keyframe, image: SatelliteImage, checkpoint: CvaaCheckpoint, located: Located, calibration: Calibration | None
) -> CvaaPreview | None:
    if not located.found:
        return None
    data = located.to_dict()
    ev = located.details.get("evidence") or {}
    margin_z = ev.get("margin_z")
    return CvaaPreview(
        keyframe=kf,
        satellite_image=image,
        checkpoint=checkpoint,
        source=CvaaPreview.Source.CVAA,
        boxes=data["boxes"],
        quads=data["quads"],
        scores=[round(s, 4) for s in data["scores"]],
        score=round(float(located.scores[0]), 4),
        margin_z=None if margin_z is None else round(float(margin_z), 4),
        p_value=ev.get("p_value"),
        confidence=None if calibration is None or margin_z is None else round(calibration(margin_z), 4),
        heatmap=heatmap_summary(located),
    )


def _index(image: SatelliteImage, encoder: object) -> WindowIndex:
    from media_tools.cvaa import WindowIndex, load_rgb

    with local_copy(image.file.name or "") as path:
        pixels = load_rgb(path)  # MediaError naming the file when it cannot be read
    return WindowIndex.build(pixels, encoder, cache_dir=Path(settings.SKYMARK_CVAA_CACHE_DIR))  # type: ignore[arg-type]


def previews_build(
    *, scene: Scene, checkpoint: CvaaCheckpoint, progress: Callable[[float], None] | None = None
) -> PreviewRun:
    """Place every keyframe of the scene on each of its satellite images with `checkpoint`, and replace
    the scene's previews with these in one transaction (a failure leaves the old ones untouched).
    Raises media_tools.MediaError (CheckpointError included) naming the file that cannot be used."""
    report = progress or (lambda _: None)
    encoder = encoder_for(checkpoint)
    before = (encoder.stats.windows_embedded, encoder.stats.frames_embedded)
    keyframes = list(Keyframe.objects.filter(video_id=scene.video_id).order_by("index"))
    images = list(scene.satellite_images.order_by("id"))
    run = PreviewRun(keyframes=len(keyframes), images=len(images), device=str(encoder.device))
    indexes = []
    for n, image in enumerate(images, 1):
        index = _index(image, encoder)
        run.index_stats.append(index.stats)
        indexes.append((image, index))
        report(0.5 * n / max(1, len(images)))
    rows: list[CvaaPreview] = []
    calibration = calibration_of(checkpoint)
    top_k = settings.SKYMARK_CVAA_TOP_K
    done = 0
    for chunk, pixels in _frames(keyframes):
        embeddings = encoder.embed_frames(pixels)  # one batched forward pass serves every image
        for kf, embedding in zip(chunk, embeddings, strict=True):
            for image, index in indexes:
                row = _row(kf, image, checkpoint, index.locate_embedding(embedding, top_k=top_k), calibration)
                if row is not None:
                    rows.append(row)
        done += len(chunk)
        report(0.5 + 0.45 * done / max(1, len(keyframes)))
    with transaction.atomic():
        CvaaPreview.objects.filter(keyframe__video_id=scene.video_id).delete()
        CvaaPreview.objects.bulk_create(rows)
    run.windows_embedded = encoder.stats.windows_embedded - before[0]
    run.frames_embedded = encoder.stats.frames_embedded - before[1]
    return run
