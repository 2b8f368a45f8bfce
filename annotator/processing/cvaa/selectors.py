"""Reads for the CVAA endpoints: per keyframe, the retriever's boxes (active model only) and its stored
placement (KeyframePlacement: the footprint from the most trusted source, with its confidence and
uncertainty), each labelled with its source. The caller passes a scene it got through
annotator.access.scopes, so what is out of the user's scope never reaches here."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import F
from django.db.models.functions import Abs
from django.http import Http404

from annotator.models import CvaaCheckpoint, CvaaPreview, Keyframe, KeyframePlacement, MediaJob, SatelliteImage, Scene

from .checkpoints import NO_MODEL, checkpoint_active
from .footprints import SOURCE_LABELS


def _checkpoint(checkpoint: CvaaCheckpoint | None) -> dict[str, Any] | None:
    if checkpoint is None:
        return None
    return {"id": checkpoint.id, "sha256": checkpoint.sha256, "origin": checkpoint.origin}


def _jobs(scene: Scene, checkpoint: CvaaCheckpoint | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The scene's previews job and placements job, as the page reports them (one query)."""
    kinds = [MediaJob.Kind.CVAA, MediaJob.Kind.PLACEMENTS]
    jobs = {j.kind: j for j in MediaJob.objects.filter(scene=scene, kind__in=kinds)}
    out = []
    for kind in kinds:
        job = jobs.get(kind)
        if job is None:
            no_model = kind == MediaJob.Kind.CVAA and checkpoint is None
            out.append({"state": None, "detail": NO_MODEL if no_model else "", "error": ""})
        else:
            out.append({"state": job.state, "detail": job.detail, "error": job.error})
    return out[0], out[1]


def box_shown(preview: CvaaPreview) -> bool:
    """Whether the workspace may draw the learned box (settings/cvaa.py): its margin over the rest of the
    image is significant, and its calibrated probability of a hit (when the checkpoint has one) reaches
    CVAA_MIN_CONFIDENCE. A preview without evidence (made before it was recorded) is not shown."""
    if preview.p_value is None or not preview.p_value < settings.SKYMARK_CVAA_SIGNIFICANCE:
        return False
    return preview.confidence is None or preview.confidence >= settings.SKYMARK_CVAA_MIN_CONFIDENCE


def _cvaa(preview: CvaaPreview | None) -> dict[str, Any] | None:
    if preview is None:
        return None
    return {
        "source": "cvaa",
        "label": SOURCE_LABELS["cvaa"],
        "box": preview.boxes[0],
        "quad": preview.quads[0],
        "score": preview.score,
        "margin_z": preview.margin_z,
        "p_value": preview.p_value,
        "confidence": preview.confidence,
        "shown": box_shown(preview),
        "boxes": preview.boxes,
        "scores": preview.scores,
    }


def _footprint(row: KeyframePlacement | None) -> dict[str, Any] | None:
    """The keyframe's stored placement: its quad, source, confidence and expected corner error, and
    whether its confidence reaches the display threshold (the workspace draws no box below it)."""
    if row is None:
        return None
    return {
        "source": row.source,
        "label": KeyframePlacement.Source(row.source).label,
        "quad": row.quad,
        "confidence": row.confidence,
        "uncertainty_px": row.uncertainty_px,
        "uncertainty_m": row.uncertainty_m,
        # Metres relative to the map, not the ground, where the map's own georeference error is unknown
        # (placements.py `_ground_error_m`); a control-point anchor's error is the ground's by definition.
        "relative_to_map": row.uncertainty_m is not None
        and row.source != KeyframePlacement.Source.CONTROL_POINTS
        and (row.details or {}).get("map_error_m") is None,
        "shown": row.confidence >= settings.SKYMARK_PLACEMENT_MIN_CONFIDENCE,
        "chained_from": (row.details or {}).get("from"),
        "drift": (row.details or {}).get("drift"),
    }


def _frames(
    scene: Scene, image: SatelliteImage | None, checkpoint: CvaaCheckpoint | None, keyframes: list[Keyframe]
) -> list[dict[str, Any]]:
    previews: dict[int, CvaaPreview] = {}
    if image is not None and checkpoint is not None and keyframes:
        rows = CvaaPreview.objects.filter(
            satellite_image=image, checkpoint=checkpoint, keyframe_id__in=[k.id for k in keyframes]
        )
        previews = {p.keyframe_id: p for p in rows}
    placed: dict[int, KeyframePlacement] = {}
    if image is not None and keyframes:
        found = KeyframePlacement.objects.filter(satellite_image=image, keyframe_id__in=[k.id for k in keyframes])
        placed = {p.keyframe_id: p for p in found}
    return [
        {
            "index": kf.index,
            "time_s": kf.time_s,
            "cvaa": _cvaa(previews.get(kf.id)),
            "footprint": _footprint(placed.get(kf.id)),
        }
        for kf in keyframes
    ]


def _head(
    scene: Scene, image_id: int | None = None
) -> tuple[SatelliteImage | None, CvaaCheckpoint | None, dict[str, Any]]:
    """The image previews are shown on (the one named, else the scene's first), and what the page
    needs to know besides the frames."""
    images = scene.satellite_images.order_by("id")
    image = images.first() if image_id is None else images.filter(id=image_id).first()
    if image is None and image_id is not None:
        raise Http404("this scene has no such satellite image")
    checkpoint = checkpoint_active()
    job, placements_job = _jobs(scene, checkpoint)
    return (
        image,
        checkpoint,
        {
            "image": image.id if image else None,
            "checkpoint": _checkpoint(checkpoint),
            "min_confidence": settings.SKYMARK_CVAA_MIN_CONFIDENCE,
            "significance": settings.SKYMARK_CVAA_SIGNIFICANCE,
            "calibrated": bool(checkpoint and (checkpoint.metrics or {}).get("calibration")),
            "placement_min_confidence": settings.SKYMARK_PLACEMENT_MIN_CONFIDENCE,
            "job": job,
            "placements_job": placements_job,
        },
    )


def cvaa_previews_for_scene(*, scene: Scene, image_id: int | None = None) -> dict[str, Any]:
    """Every keyframe of the scene with its CVAA boxes and its placement on one of its images (the
    first unless `image_id` names another; the workspace fetches once per image it shows). Http404
    when the scene has no such image."""
    image, checkpoint, head = _head(scene, image_id)
    keyframes = list(Keyframe.objects.filter(video_id=scene.video_id).order_by("index"))
    return {**head, "frames": _frames(scene, image, checkpoint, keyframes)}


def cvaa_at(*, scene: Scene, t: float, image_id: int | None = None) -> dict[str, Any]:
    """The keyframe nearest video time `t` (the earlier one on a tie) with its boxes and its placement on
    one of the scene's images (the first unless `image_id` names another). Http404 when the scene has
    no such image."""
    image, checkpoint, head = _head(scene, image_id)
    nearest = (
        Keyframe.objects.filter(video_id=scene.video_id)
        .annotate(gap=Abs(F("time_s") - t))
        .order_by("gap", "index")
        .first()
    )
    frame = _frames(scene, image, checkpoint, [nearest])[0] if nearest else None
    return {**head, "t": t, "frame": frame}
