"""Every keyframe of a scene placed on each of its satellite images: the `placements` job's work.

Per image, each method proposes placements (media_tools.cvaa.Placement) and `_trust` keeps one per
keyframe:

- anchors: the image was made from that very frame at import (FrameFootprint): a control-point
  homography (`control_points`, its error the georeference's RMS) or the frame itself (`same_frame`);
- telemetry: the drone's position, height and heading through the assumed camera (footprints.py), with
  the errors of settings.SKYMARK_PLACEMENT_* combined into a corner error;
- matching: media_tools.cvaa.geometry.GeometricLocator over the image, built once per image; where it
  finds nothing on the whole image, near each of the learned retriever's top windows (`_geometric`);
- chaining: media_tools.cvaa.tracking.chain through the keyframes in time order from every keyframe an
  anchor or matching placed, re-anchoring on the map with the same locator;
- learned: the active retriever's best window (CvaaPreview), a window only (no homography), and only
  where the workspace would show its box (`_learned`).

Keyframe pixels are Keyframe.image's, so every homography maps keyframe-image pixels to the satellite
image's own pixels (what the API serves).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from django.conf import settings
from django.db import transaction

from annotator.models import (
    CvaaPreview,
    FrameFootprint,
    Keyframe,
    KeyframePlacement,
    SatelliteImage,
    Scene,
    TelemetryTrack,
)
from annotator.storage import local_copy
from media_tools.cvaa import placement as src
from media_tools.cvaa.placement import Placement
from media_tools.cvaa.quads import placement_from_quad, quad_radius
from media_tools.geo import GeoReference

from .agreement import telemetry_checked
from .checkpoints import checkpoint_active
from .footprints import Footprint, keyframe_footprints
from .keyframe_pixels import KeyframePixels
from .selectors import box_shown

if TYPE_CHECKING:
    from media_tools.cvaa.geometry import GeometricLocator

# Where several methods place one keyframe, the most trusted wins (`_trust`, the one rule): first any
# placement whose confidence reaches settings.SKYMARK_PLACEMENT_MIN_CONFIDENCE (and, for chaining, whose
# drift is not flagged) over any that does not; then by source in this order (an anchor is exact by
# construction; matching is verified against the map itself; chaining carries a verified placement
# along; telemetry rests on the GPS and an assumed camera; the learned window is a box, not a view);
# then the higher confidence.
TRUST_ORDER = (src.CONTROL_POINTS, src.SAME_FRAME, src.MATCHING, src.CHAINING, src.TELEMETRY, src.LEARNED)


def _trust(p: Placement) -> tuple[bool, int, float]:
    """Sort key, most trusted first (see TRUST_ORDER)."""
    drifting = p.source == src.CHAINING and bool(p.details.get("drift"))
    weak = p.confidence < settings.SKYMARK_PLACEMENT_MIN_CONFIDENCE or drifting
    return (weak, TRUST_ORDER.index(p.source), -p.confidence)


def placement_best(candidates: Sequence[Placement | None]) -> Placement | None:
    """The most trusted of a keyframe's candidate placements (None among them ignored)."""
    found = [c for c in candidates if c is not None]
    return min(found, key=_trust) if found else None


@dataclass
class PlacementRun:
    """What one run did: keyframes and images, and per image how many keyframes each source placed."""

    keyframes: int = 0
    images: int = 0
    by_source: dict[int, dict[str, int]] = field(default_factory=dict)

    def summary(self) -> str:
        parts = []
        for image_id, counts in self.by_source.items():
            placed = sum(counts.values())
            sources = ", ".join(f"{n} {s}" for s, n in sorted(counts.items(), key=lambda kv: -kv[1])) or "none"
            parts.append(f"image {image_id}: {placed}/{self.keyframes} placed ({sources})")
        return "; ".join(parts) if parts else f"{self.keyframes} keyframes, no satellite image"


def _gsd_m(image: SatelliteImage) -> float | None:
    if not image.georef:
        return None
    try:
        gsd = GeoReference.from_dict(image.georef).gsd_m()
    except (KeyError, ValueError, TypeError):
        return None
    return gsd if math.isfinite(gsd) and gsd > 0 else None


def _telemetry_error_px(quad: np.ndarray, gsd_m: float) -> float:
    """Expected corner error of a telemetry footprint: the GPS error, the footprint's size error (camera
    and height) and the heading error at the footprint's corners, as independent errors."""
    radius_m = quad_radius(quad) * gsd_m
    error_m = math.hypot(
        settings.SKYMARK_PLACEMENT_GPS_ERROR_M,
        radius_m * settings.SKYMARK_PLACEMENT_TELEMETRY_SCALE_ERROR,
        radius_m * math.radians(settings.SKYMARK_PLACEMENT_HEADING_ERROR_DEG),
    )
    return error_m / gsd_m


def _known(fp: Footprint, image: SatelliteImage, size: tuple[int, int], gsd_m: float | None) -> Placement | None:
    """An anchor's or a telemetry footprint's placement (module doc)."""
    quad = np.asarray(fp.quad, float)
    if fp.source == FrameFootprint.Source.SAME_FRAME:
        return placement_from_quad(source=src.SAME_FRAME, quad=quad, frame_size=size, uncertainty_px=0.0)
    if fp.source == FrameFootprint.Source.HOMOGRAPHY:
        rms = image.georef_rms_m if image.georef_rms_m is not None and gsd_m else 0.0
        details = {"georef_rms_m": image.georef_rms_m} if image.georef_rms_m is not None else {}
        return placement_from_quad(
            source=src.CONTROL_POINTS, quad=quad, frame_size=size, uncertainty_px=rms / (gsd_m or 1.0), details=details
        )
    if gsd_m is None:  # a telemetry footprint exists only on a georeferenced image
        return None
    return placement_from_quad(
        source=src.TELEMETRY, quad=quad, frame_size=size, uncertainty_px=_telemetry_error_px(quad, gsd_m)
    )


def _learned(preview: CvaaPreview | None, size: tuple[int, int]) -> Placement | None:
    """The retriever's best window, a window only, where the workspace would show its box (a significant
    margin and enough calibrated confidence, selectors.box_shown): anything else is a guess. Its
    confidence is the calibrated probability of a hit, or the raw score for a checkpoint without a
    calibration (details say which); its uncertainty the window's half-diagonal ("somewhere in here")."""
    if preview is None or not preview.quads or not box_shown(preview):
        return None
    quad = np.asarray(preview.quads[0], float)
    box = np.asarray(preview.boxes[0], float)
    calibrated = preview.confidence is not None
    confidence = preview.confidence if preview.confidence is not None else preview.score
    return placement_from_quad(
        source=src.LEARNED,
        quad=quad,
        frame_size=size,
        uncertainty_px=float(np.hypot(box[2] - box[0], box[3] - box[1]) / 2),
        confidence=float(min(1.0, max(0.0, confidence))),
        with_homography=False,
        details={
            "score": preview.score,
            "p_value": preview.p_value,
            "calibrated": calibrated,
            "checkpoint": preview.checkpoint_id,
        },
    )


def _satellite_locator(image: SatelliteImage) -> GeometricLocator:
    from media_tools.cvaa import load_rgb
    from media_tools.cvaa.geometry import GeometricLocator

    with local_copy(image.file.name or "") as path:
        return GeometricLocator(load_rgb(path))  # MediaError naming the file when it cannot be read


def _geometric(
    frames: KeyframePixels,
    locator: GeometricLocator,
    anchors: Mapping[int, Placement],
    report: Callable[[float], None],
    windows: Mapping[int, np.ndarray] | None = None,
) -> tuple[dict[int, Placement], dict[int, Placement]]:
    """(matching, chaining) placements by keyframe position: every keyframe an anchor does not place
    located on the map once, then chained through the video from every one that an anchor or matching
    placed. Chaining's re-anchoring checks reuse these matches (each keyframe is matched at most once
    on the image), and an anchored keyframe is not matched at all: the anchor is exact and wins. Each
    keyframe's features are described once, shared by matching and chaining (FrameFeatureCache).

    Where whole-map matching finds nothing, the learned retriever's top windows (`windows`, by position)
    say where to look: the locator is run near each (rerank.placement_near_windows), and what it verifies
    is a matching placement that also seeds chaining, so a clip whose tracking was lost starts again there."""
    from media_tools.cvaa.matching import FrameFeatureCache
    from media_tools.cvaa.rerank import placement_near_windows
    from media_tools.cvaa.tracking import chain

    features = FrameFeatureCache(frames, side=locator.frame_side, max_features=locator.frame_features)
    tried: dict[int, Placement | None] = {}
    n = len(frames)

    def seed(k: int) -> bool:  # placed before chaining: by an anchor or by matching (or past either end)
        return not 0 <= k < n or k in anchors or tried.get(k) is not None

    for i in range(n):
        if i not in anchors:
            tried[i] = locator.locate(frames[i], features=features[i])
            if tried[i] is None and windows and i in windows:
                tried[i] = placement_near_windows(frames[i], windows[i], locator, features=features[i])
        # Chaining walks from a seed only into unplaced neighbours, so a seed between seeds needs no features
        # kept: a long, well-matched video does not hold every keyframe's.
        for j in (i - 1, i) if i == n - 1 else (i - 1,):
            if seed(j - 1) and seed(j) and seed(j + 1):
                features.forget(j)
        report(0.7 * (i + 1) / max(1, n))
    matched = {i: p for i, p in tried.items() if p is not None}
    seeds = {**matched, **anchors}
    chained: dict[int, Placement] = {}
    if seeds:
        for i, p in enumerate(chain(frames, seeds, locator=locator, matches=tried, features=features)):
            if p is not None and i not in seeds:
                chained[i] = p
    report(1.0)
    return matched, chained


@dataclass
class _SceneInputs:
    keyframes: list[Keyframe]
    frames: KeyframePixels
    anchors: list[FrameFootprint]
    track: TelemetryTrack | None
    previews: dict[tuple[int, int], CvaaPreview]


def _inputs(scene: Scene) -> _SceneInputs:
    keyframes = list(Keyframe.objects.filter(video_id=scene.video_id).order_by("index"))
    checkpoint = checkpoint_active()
    previews = {}
    if checkpoint is not None:
        rows = CvaaPreview.objects.filter(keyframe__video_id=scene.video_id, checkpoint=checkpoint)
        previews = {(p.keyframe_id, p.satellite_image_id): p for p in rows}
    return _SceneInputs(
        keyframes=keyframes,
        frames=KeyframePixels(keyframes),
        anchors=list(FrameFootprint.objects.filter(scene=scene)),
        track=TelemetryTrack.objects.filter(scene=scene).prefetch_related("samples").first(),
        previews=previews,
    )


def _image_placements(
    scene: Scene, image: SatelliteImage, inputs: _SceneInputs, report: Callable[[float], None]
) -> dict[int, Placement]:
    """Keyframe position -> its most trusted placement on `image`."""
    frames, keyframes = inputs.frames, inputs.keyframes
    gsd = _gsd_m(image)
    known = keyframe_footprints(
        video=scene.video, image=image, keyframes=keyframes, anchors=inputs.anchors, track=inputs.track
    )
    position = {kf.index: i for i, kf in enumerate(keyframes)}
    candidates: dict[int, list[Placement | None]] = {i: [] for i in range(len(keyframes))}
    for index, fp in known.items():
        candidates[position[index]].append(_known(fp, image, frames.size(position[index]), gsd))
    anchors = {
        i: p
        for i, ps in candidates.items()
        for p in ps
        if p is not None and p.source in (src.CONTROL_POINTS, src.SAME_FRAME)
    }
    report(0.05)
    if keyframes:
        locator = _satellite_locator(image)
        windows = {
            i: np.asarray(preview.quads, float)
            for i, kf in enumerate(keyframes)
            if (preview := inputs.previews.get((kf.id, image.id))) is not None and preview.quads
        }
        matched, chained = _geometric(frames, locator, anchors, lambda f: report(0.05 + 0.9 * f), windows)
        for found in (matched, chained):
            for i, p in found.items():
                candidates[i].append(p)
    for i, kf in enumerate(keyframes):
        candidates[i].append(_learned(inputs.previews.get((kf.id, image.id)), frames.size(i)))
    best = {i: placement_best(ps) for i, ps in candidates.items()}
    return {i: telemetry_checked(p, candidates[i], gsd) for i, p in best.items() if p is not None}


def _ground_error_m(image: SatelliteImage, p: Placement, gsd_m: float | None) -> float | None:
    """The expected corner error on the ground: the error on the map (`uncertainty_px`) and the map's own
    georeference error (its RMS at control points) as independent errors. A control-point anchor's error
    is that RMS already. Where the map's error is unknown (a GeoTIFF without control points) it is the
    error on the map alone, and details["map_error_m"] is None to say so."""
    if gsd_m is None:
        return None
    on_map = p.uncertainty_px * gsd_m
    if p.source == src.CONTROL_POINTS or image.georef_rms_m is None:
        return round(on_map, 3)
    return round(math.hypot(on_map, image.georef_rms_m), 3)


def _row(kf: Keyframe, image: SatelliteImage, p: Placement, gsd_m: float | None) -> KeyframePlacement:
    data = p.to_dict()
    if gsd_m is not None:
        data["details"] = {**data["details"], "map_error_m": image.georef_rms_m}
    return KeyframePlacement(
        keyframe=kf,
        satellite_image=image,
        source=p.source,
        quad=data["quad"],
        homography=data["homography"],
        frame_width=p.frame_size[0],
        frame_height=p.frame_size[1],
        confidence=data["confidence"],
        uncertainty_px=data["uncertainty_px"],
        uncertainty_m=_ground_error_m(image, p, gsd_m),
        details=_json(data["details"]),
    )


def _json(value: Any) -> Any:
    """Method details as JSON (numpy numbers and arrays from the library become plain ones)."""
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    if isinstance(value, np.ndarray):
        return _json(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


def placements_build(*, scene: Scene, progress: Callable[[float], None] | None = None) -> PlacementRun:
    """Place every keyframe of the scene on each of its satellite images from the most trusted source
    (module doc), and replace the scene's placements with these in one transaction: a failure leaves
    the old ones untouched. Raises media_tools.MediaError naming a file that cannot be read."""
    report = progress or (lambda _: None)
    inputs = _inputs(scene)
    images = list(scene.satellite_images.order_by("id"))
    run = PlacementRun(keyframes=len(inputs.keyframes), images=len(images))
    rows: list[KeyframePlacement] = []
    share = 0.95 / max(1, len(images))
    for n, image in enumerate(images):

        def image_report(f: float, start: float = n * share) -> None:
            report(start + f * share)

        placed = _image_placements(scene, image, inputs, image_report)
        gsd = _gsd_m(image)
        counts: dict[str, int] = {}
        for i, p in sorted(placed.items()):
            rows.append(_row(inputs.keyframes[i], image, p, gsd))
            counts[p.source] = counts.get(p.source, 0) + 1
        run.by_source[image.id] = counts
    with transaction.atomic():
        KeyframePlacement.objects.filter(keyframe__video_id=scene.video_id).delete()
        KeyframePlacement.objects.bulk_create(rows)
    report(1.0)
    return run
