"""Real training pairs for CVAA: keyframes whose place on a satellite image is known without the model.

Sources, per keyframe and image (the first that has it wins, so a keyframe is one pair per image):
1. KeyframePlacement rows placed by control points, the frame itself, feature matching, chaining or
   telemetry with confidence >= settings.SKYMARK_CVAA_TRAIN_MIN_CONFIDENCE (0.8 by default: a placement
   method's confidence is the share it expects to be right, and a wrong pair teaches the model a wrong
   place), and not flagged as drifting (details["drift"]). Rows of the learned retriever itself are never
   used: a model trained on its own answers learns its own mistakes.
2. FrameFootprint anchors (the frame the image was made from) and telemetry footprints (footprints.py).
3. Regions of approved items, as the view of the keyframe at the mark's time (Pair.from_box).
Each pair keeps its scene, so the split (split.py) can hold whole scenes out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from django.conf import settings

from annotator.marking.geometry import region_shape
from annotator.models import Item, Keyframe, KeyframePlacement, Mark, Scene
from annotator.storage import local_copy
from media_tools.cvaa import CvaaConfig

from .footprints import scene_footprints
from .placements_read import placements_for

if TYPE_CHECKING:
    from media_tools.cvaa import Pair

TRUSTED_SOURCES = (
    KeyframePlacement.Source.CONTROL_POINTS,
    KeyframePlacement.Source.SAME_FRAME,
    KeyframePlacement.Source.MATCHING,
    KeyframePlacement.Source.CHAINING,
    KeyframePlacement.Source.TELEMETRY,
)


@dataclass
class Tagged:
    scene_id: int
    image_id: int
    source: str  # "placement:matching", "footprint:telemetry", "approved marks" ...
    pair: Pair


@dataclass
class Collected:
    pairs: list[Tagged] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)  # placements not used, by reason
    small_marks: int = 0

    def counts(self, scenes: frozenset[int] | set[int] | None = None) -> dict[str, int]:
        """Pairs per source, of the given scenes only when named."""
        kept = Counter(t.source for t in self.pairs if scenes is None or t.scene_id in scenes)
        return dict(sorted(kept.items()))


def _pixels(name: str) -> np.ndarray:
    from media_tools.cvaa import load_rgb

    with local_copy(name) as path:
        return load_rgb(path)


def trusted(row: KeyframePlacement, min_confidence: float) -> str:
    """Why a placement row is not a training pair ("" when it is one)."""
    if row.source not in TRUSTED_SOURCES:
        return f"source {row.source}"
    if row.confidence < min_confidence:
        return "low confidence"
    if (row.details or {}).get("drift"):
        return "drift"
    return ""


def _scene_pairs(scene: Scene, image_ids: set[int], out: Collected, min_confidence: float) -> None:
    from media_tools.cvaa import Pair

    keyframes = list(Keyframe.objects.filter(video_id=scene.video_id).order_by("index"))
    by_index = {kf.index: kf for kf in keyframes}
    for image in scene.satellite_images.filter(id__in=image_ids).order_by("id"):
        quads: dict[int, tuple[str, np.ndarray]] = {}
        for index, row in sorted(placements_for(scene=scene, image=image).items()):
            why = trusted(row, min_confidence)
            if why:
                out.skipped[why] += 1
            else:
                quads[index] = (f"placement:{row.source}", np.asarray(row.quad, float))
        for index, footprint in scene_footprints(scene=scene, image=image, keyframes=keyframes).items():
            quads.setdefault(index, (f"footprint:{footprint.source}", np.asarray(footprint.quad, float)))
        for index, (source, quad) in sorted(quads.items()):
            frame = _pixels(by_index[index].image.name or "")
            out.pairs.append(Tagged(scene.id, image.id, source, Pair(frame, quad)))


def _mark_pairs(config: CvaaConfig, shapes: dict[int, tuple[int, int]], out: Collected) -> None:
    """Pairs from approved regions at least as large as the smallest training view."""
    from media_tools.cvaa import Pair

    marks = (
        Mark.objects.filter(items__state=Item.State.APPROVED, kind__in=[Mark.Kind.POLYGON, Mark.Kind.ELLIPSE])
        .select_related("scene")
        .distinct()
        .order_by("id")
    )
    keyframes: dict[int, list[Keyframe]] = {}
    for mark in marks:
        shape = shapes.get(mark.satellite_image_id)
        if shape is None:
            continue
        video_id = mark.scene.video_id
        if video_id not in keyframes:
            keyframes[video_id] = list(Keyframe.objects.filter(video_id=video_id).order_by("index"))
        if not keyframes[video_id]:
            continue
        kf = min(keyframes[video_id], key=lambda k: abs(k.time_s - mark.time_start))
        x1, y1, x2, y2 = region_shape(mark.kind, mark.geometry).bounds
        # A region smaller than the smallest view the model trains on cannot be what a frame shows.
        if min(x2 - x1, y2 - y1) < config.min_view * min(shape):
            out.small_marks += 1
            continue
        pair = Pair.from_box(_pixels(kf.image.name or ""), (x1, y1, x2, y2))
        out.pairs.append(Tagged(mark.scene_id, mark.satellite_image_id, "approved marks", pair))


def real_pairs_collect(
    *, config: CvaaConfig, scenes: dict[int, set[int]], shapes: dict[int, tuple[int, int]], log: Callable[[str], None]
) -> Collected:
    """Every real pair of the given scenes (scene id -> image ids that can be read) on images of
    `shapes` (image id -> (height, width)). Logs what each source gave and why placements were skipped."""
    min_confidence = settings.SKYMARK_CVAA_TRAIN_MIN_CONFIDENCE
    out = Collected()
    for scene in Scene.objects.filter(id__in=list(scenes)).select_related("video").order_by("id"):
        _scene_pairs(scene, scenes[scene.id], out, min_confidence)
    _mark_pairs(config, shapes, out)
    counts = out.counts()
    placed = {k.split(":", 1)[1]: v for k, v in counts.items() if k.startswith("placement:")}
    log(
        f"placements (confidence >= {min_confidence:g}): "
        + (", ".join(f"{k} {v}" for k, v in placed.items()) or "none")
        + (f"; not used: {', '.join(f'{n} {why}' for why, n in sorted(out.skipped.items()))}" if out.skipped else "")
    )
    for source in ("footprint:homography", "footprint:same_frame", "footprint:telemetry", "approved marks"):
        n = counts.get(source, 0)
        small = source == "approved marks" and out.small_marks
        log(
            f"{source}: {n} pair(s)"
            if n
            else f"{source}: none" + (f" ({small} region(s) smaller than the smallest training view)" if small else "")
        )
    return out
