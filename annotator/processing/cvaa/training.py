"""Training a CVAA checkpoint from what the platform holds, as a command (train_cvaa) or a Celery job.

Pair sources, each used when the platform has it and named in the log either way:
- self-supervised: every satellite image, cut into crops warped as a drone would see them;
- homography: keyframes whose footprint is known from how the scene's image was made (footprints.py);
- telemetry: keyframes placed by the drone's GPS, altitude and heading on a georeferenced image;
- approved marks: regions (polygons, ellipses) of items approved in review, taken as the view of the
  keyframe at the mark's time (Pair.from_box), when at least as large as the smallest training view.
Validation (which picks the checkpoint kept) is a fixed draw of self-supervised pairs plus, once there
are ten or more real pairs, every fifth real pair held out of training: real drone frames are what the
model is for, but one or two of them alone would make recall@1 a coin toss.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotator.marking.geometry import region_shape
from annotator.models import CvaaCheckpoint, CvaaTraining, Item, Keyframe, Mark, MediaJob, SatelliteImage, Scene
from annotator.storage import local_copy
from media_tools import MediaError
from media_tools.cvaa import CvaaConfig

from .checkpoints import checkpoint_activate, checkpoint_create
from .footprints import scene_footprints

if TYPE_CHECKING:
    # Pair sources and pixel loading need OpenCV and GDAL: imported by the functions a training run
    # calls, since web processes import this module (through the task that runs it) and never train.
    from media_tools.cvaa import Pair, PairSource, SyntheticPairs

PRESETS = {"small": CvaaConfig.small, "tiny": CvaaConfig.tiny}
# Real pairs get this share of each batch once there are many; fewer get less, so that a handful of
# pairs (a single control-point frame, say) is not repeated until the model memorises it.
REAL_SHARE, REAL_HALF_AT = 0.5, 64
HOLD_OUT_EVERY, HOLD_OUT_FROM = 5, 10
SYNTHETIC_VAL = 128

Log = Callable[[str], None]


@dataclass
class Sources:
    train: PairSource
    val: tuple[np.ndarray, np.ndarray]
    counts: dict[str, int] = field(default_factory=dict)


def _pixels(name: str) -> np.ndarray:
    from media_tools.cvaa import load_rgb

    with local_copy(name) as path:
        return load_rgb(path)


def _nearest(keyframes: list[Keyframe], t: float) -> Keyframe | None:
    return min(keyframes, key=lambda k: abs(k.time_s - t)) if keyframes else None


def _footprint_pairs(scene: Scene, images: dict[int, np.ndarray], pairs: dict[int, list[Pair]]) -> dict[str, int]:
    from media_tools.cvaa import Pair

    counts: dict[str, int] = defaultdict(int)
    keyframes = list(Keyframe.objects.filter(video_id=scene.video_id).order_by("index"))
    by_index = {kf.index: kf for kf in keyframes}
    for image in scene.satellite_images.order_by("id"):
        if image.id not in images:
            continue
        for index, footprint in scene_footprints(scene=scene, image=image, keyframes=keyframes).items():
            frame = _pixels(by_index[index].image.name or "")
            pairs[image.id].append(Pair(frame, np.asarray(footprint.quad, float)))
            counts["telemetry" if footprint.source == "telemetry" else "homography"] += 1
    return counts


def _mark_pairs(config: CvaaConfig, images: dict[int, np.ndarray], pairs: dict[int, list[Pair]]) -> tuple[int, int]:
    """Pairs from approved regions; returns (used, skipped as smaller than any training view)."""
    from media_tools.cvaa import Pair

    used = small = 0
    marks = (
        Mark.objects.filter(items__state=Item.State.APPROVED, kind__in=[Mark.Kind.POLYGON, Mark.Kind.ELLIPSE])
        .select_related("scene")
        .distinct()
        .order_by("id")
    )
    keyframes: dict[int, list[Keyframe]] = {}
    for mark in marks:
        image = images.get(mark.satellite_image_id)
        if image is None:
            continue
        video_id = mark.scene.video_id
        if video_id not in keyframes:
            keyframes[video_id] = list(Keyframe.objects.filter(video_id=video_id).order_by("index"))
        kf = _nearest(keyframes[video_id], mark.time_start)
        if kf is None:
            continue
        x1, y1, x2, y2 = region_shape(mark.kind, mark.geometry).bounds
        # A region smaller than the smallest view the model trains on cannot be what a frame shows.
        if min(x2 - x1, y2 - y1) < config.min_view * min(image.shape[:2]):
            small += 1
            continue
        pairs[mark.satellite_image_id].append(Pair.from_box(_pixels(kf.image.name or ""), (x1, y1, x2, y2)))
        used += 1
    return used, small


def sources_collect(*, config: CvaaConfig, log: Log) -> Sources:
    """Every pair source the platform has (module doc). Raises MediaError when there is no image at all."""
    from media_tools.cvaa import SyntheticPairs

    images: dict[int, np.ndarray] = {}
    for image in SatelliteImage.objects.filter(scenes__isnull=False).distinct().order_by("id"):
        try:
            images[image.id] = _pixels(image.file.name or "")
        except MediaError as exc:
            log(f"skipped image {image.id}: {exc}")
    if not images:
        raise MediaError("no satellite image to train on: import a scene first")
    log(f"self-supervised: {len(images)} satellite image(s), crops warped as oblique drone views")
    pairs: dict[int, list[Pair]] = defaultdict(list)
    counts: dict[str, int] = dict.fromkeys(("homography", "telemetry", "approved marks"), 0)
    for scene in Scene.objects.filter(satellite_images__in=list(images)).distinct().select_related("video"):
        for source, n in _footprint_pairs(scene, images, pairs).items():
            counts[source] += n
    counts["approved marks"], too_small = _mark_pairs(config, images, pairs)
    _say_real(log, counts, too_small)
    synthetic = [SyntheticPairs.from_config(pixels, config) for pixels in images.values()]
    return _assemble(config, images, pairs, synthetic, {"self-supervised images": len(images), **counts}, log)


def _say_real(log: Log, counts: dict[str, int], too_small: int) -> None:
    why = {
        "homography": "no keyframe whose image was made from it (control-point orthophoto or frame as image)",
        "telemetry": "no scene with a telemetry track with altitude and heading on a georeferenced image",
        "approved marks": "no region of an approved item"
        + (f" large enough ({too_small} smaller than the smallest training view)" if too_small else ""),
    }
    for source, reason in why.items():
        n = counts.get(source, 0)
        log(f"{source}: {n} pair(s)" if n else f"{source}: none ({reason})")


def _assemble(
    config: CvaaConfig,
    images: dict[int, np.ndarray],
    pairs: dict[int, list[Pair]],
    synthetic: list[SyntheticPairs],
    counts: dict[str, int],
    log: Log,
) -> Sources:
    from media_tools.cvaa import MixedPairs, RealPairs

    n_real = sum(len(p) for p in pairs.values())
    held = n_real >= HOLD_OUT_FROM
    real, val_parts = [], []
    for image_id, image_pairs in pairs.items():
        out = [held and i % HOLD_OUT_EVERY == HOLD_OUT_EVERY - 1 for i in range(len(image_pairs))]
        train_pairs = [p for p, o in zip(image_pairs, out, strict=True) if not o]
        val_pairs = [p for p, o in zip(image_pairs, out, strict=True) if o]
        kw: dict[str, Any] = {"input_size": config.input_size, "rotations": config.rotations}
        if train_pairs:
            real.append((RealPairs(images[image_id], train_pairs, **kw), len(train_pairs)))
        if val_pairs:
            val_parts.append(RealPairs(images[image_id], val_pairs, **kw).fixed())
    n_train = sum(n for _, n in real)
    share = REAL_SHARE * n_train / (n_train + REAL_HALF_AT) * 2 if n_train else 0.0
    share = min(REAL_SHARE, share)
    sources: list[PairSource] = [*synthetic, *(r for r, _ in real)]
    weights = [(1 - share) / len(synthetic)] * len(synthetic) + [share * n / n_train for _, n in real]
    # A seed of its own: training batches use [seed, step] generators, so these pairs are never drawn.
    val_parts.insert(
        0, MixedPairs(synthetic, [1.0] * len(synthetic)).batch(np.random.default_rng(2**31), SYNTHETIC_VAL)
    )
    val = (np.concatenate([v[0] for v in val_parts]), np.concatenate([v[1] for v in val_parts]))
    held_out = len(val[0]) - SYNTHETIC_VAL
    log(
        f"validation: {SYNTHETIC_VAL} self-supervised pairs and {held_out} held-out real pair(s)"
        + ("" if held else f" (real pairs are held out from {HOLD_OUT_FROM} on)")
    )
    log(f"batches: {share:.0%} real pairs, the rest self-supervised")
    return Sources(MixedPairs(sources, weights), val, {**counts, "validation real pairs": held_out})


def _claim(run_id: int) -> CvaaTraining | None:
    with transaction.atomic():
        run = CvaaTraining.objects.select_for_update().get(id=run_id)
        if run.state != CvaaTraining.State.PENDING:
            return None  # finished, failed or running elsewhere: running it twice would train twice
        run.state, run.started_at = CvaaTraining.State.RUNNING, timezone.now()
        run.save(update_fields=["state", "started_at"])
        return run


def _finish(run_id: int, **fields: Any) -> None:
    CvaaTraining.objects.filter(id=run_id).update(finished_at=timezone.now(), **fields)


def training_run(
    *, run_id: int, progress: Callable[[float], None] | None = None, log: Log | None = None
) -> list[MediaJob]:
    """Train for a pending CvaaTraining row, store the best checkpoint and, when the run asks for it,
    make it active. Returns the preview jobs that activation put back to pending (the caller enqueues
    them). A run that cannot train (no images, bad options) ends `failed` with the reason."""
    from media_tools.cvaa import train  # imports torch

    run = _claim(run_id)
    if run is None:
        return []
    say = log or (lambda _: None)
    last = {"pct": -1}

    def report(fraction: float) -> None:
        pct = min(99, int(fraction * 100))
        if pct > last["pct"]:
            CvaaTraining.objects.filter(id=run_id).update(progress=pct)
            last["pct"] = pct
        if progress:
            progress(fraction)

    try:
        preset = run.options.get("preset", "small")
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
        config = PRESETS[preset]()
        sources = sources_collect(config=config, log=say)
        device = run.options.get("device") or settings.SKYMARK_CVAA_DEVICE
        result = train(
            sources.train, config, steps=run.steps, seed=run.seed, val_pairs=sources.val,
            device=device, threads=run.options.get("threads"), progress=report, log=say,
        )  # fmt: skip
        checkpoint, _ = checkpoint_create(
            data=result.checkpoint_bytes,
            name=f"cvaa-{preset}-{result.weights_sha256[:8]}.pt",
            origin=CvaaCheckpoint.Origin.TRAINED,
            created_by=run.created_by,
            metrics=_metrics(run, result, sources),
        )
        jobs = checkpoint_activate(checkpoint_id=checkpoint.id) if run.options.get("activate", True) else []
    except (MediaError, ValueError) as exc:
        _finish(run_id, state=CvaaTraining.State.FAILED, error=str(exc) or type(exc).__name__)
        return []
    except Exception as exc:
        _finish(run_id, state=CvaaTraining.State.FAILED, error=f"internal error while training: {exc!r}")
        raise
    detail = (
        f"best recall@1 {result.best_recall_at_1:.2f} at step {result.best_step}/{run.steps} on {result.device}, "
        f"{sum(v for k, v in sources.counts.items() if k in ('homography', 'telemetry', 'approved marks'))} real pairs"
    )
    _finish(run_id, state=CvaaTraining.State.SUCCEEDED, progress=100, detail=detail, checkpoint=checkpoint)
    return jobs


def _metrics(run: CvaaTraining, result: Any, sources: Sources) -> dict[str, Any]:
    losses = [h["loss"] for h in result.history]
    tenth = max(1, len(losses) // 10)
    return {
        "steps": run.steps,
        "seed": run.seed,
        "preset": run.options.get("preset", "small"),
        "device": result.device,
        "batch_size": result.batch_size,
        "seconds": round(result.seconds, 1),
        "best_step": result.best_step,
        "val_recall_at_1": result.best_recall_at_1,
        "loss_first": round(float(np.mean(losses[:tenth])), 4),
        "loss_last": round(float(np.mean(losses[-tenth:])), 4),
        "pairs": sources.counts,
        "training_run": run.id,
    }


def training_create(*, steps: int, seed: int, options: dict[str, Any], created_by: Any | None) -> CvaaTraining:
    """A pending training run (the command runs it here; the API enqueues it for a `gpu` worker)."""
    return CvaaTraining.objects.create(steps=steps, seed=seed, options=options, created_by=created_by)
