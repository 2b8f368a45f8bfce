"""Training a CVAA checkpoint from what the platform holds, as a command (train_cvaa) or a Celery job.

Pair sources, each named in the log with its count either way:
- self-supervised: every satellite image of a training scene, cut into crops warped as a drone would see
  them;
- real pairs (realpairs.py): confident placements (control points, same frame, matching, chaining,
  telemetry; never the learned retriever's own), FrameFootprint anchors and telemetry footprints, and
  regions of approved items.
Held out (split.py): whole scenes, with every scene that shares a satellite image with them. Their real
pairs pick the checkpoint kept (validation recall@1, beside a fixed draw of self-supervised pairs from
training images) and then calibrate its score (calibrate.py); their images are never trained on.
The checkpoint's metrics record the pairs per source on each side, the split and the calibration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotator.models import CvaaCheckpoint, CvaaTraining, MediaJob, SatelliteImage, Scene
from annotator.storage import local_copy
from media_tools import MediaError
from media_tools.cvaa import CvaaConfig

from .calibrate import calibrate_checkpoint
from .checkpoints import checkpoint_activate, checkpoint_create
from .realpairs import Collected, real_pairs_collect
from .split import SceneSplit, scene_split

if TYPE_CHECKING:
    # Pair sources and pixel loading need OpenCV and GDAL: imported by the functions a training run
    # calls, since web processes import this module (through the task that runs it) and never train.
    from media_tools.cvaa import Pair, PairSource, SyntheticPairs

PRESETS = {"small": CvaaConfig.small, "tiny": CvaaConfig.tiny}
# Real pairs get this share of each batch once there are many; fewer get less, so that a handful of
# pairs (a single control-point frame, say) is not repeated until the model memorises it.
REAL_SHARE, REAL_HALF_AT = 0.5, 64
SYNTHETIC_VAL = 128

Log = Callable[[str], None]


@dataclass
class Sources:
    train: PairSource
    val: tuple[np.ndarray, np.ndarray]
    split: SceneSplit
    images: dict[int, np.ndarray]
    held_pairs: dict[int, list[Pair]]  # held-out image id -> its real pairs (calibration)
    counts: dict[str, Any] = field(default_factory=dict)
    # (kind, image id, real pairs, weight) per source of `train`, in its order: what a bundle records
    recipe: list[tuple[str, int, list[Pair], float]] = field(default_factory=list)


def _pixels(name: str) -> np.ndarray:
    from media_tools.cvaa import load_rgb

    with local_copy(name) as path:
        return load_rgb(path)


def _readable_images(log: Log) -> dict[int, np.ndarray]:
    images: dict[int, np.ndarray] = {}
    for image in SatelliteImage.objects.filter(scenes__isnull=False).distinct().order_by("id"):
        try:
            images[image.id] = _pixels(image.file.name or "")
        except MediaError as exc:
            log(f"skipped image {image.id}: {exc}")
    if not images:
        raise MediaError("no satellite image to train on: import a scene first")
    return images


@dataclass
class HeldOut:
    """What calibration needs: the readable images, the split by scene and the held-out real pairs."""

    images: dict[int, np.ndarray]
    split: SceneSplit
    held_pairs: dict[int, list[Pair]]


def _collect(config: CvaaConfig, seed: int, log: Log) -> tuple[dict[int, np.ndarray], SceneSplit, Collected]:
    images = _readable_images(log)
    scenes: dict[int, set[int]] = {}
    for scene in (
        Scene.objects.filter(satellite_images__in=list(images)).distinct().prefetch_related("satellite_images")
    ):
        scenes[scene.id] = {i.id for i in scene.satellite_images.all() if i.id in images}
    split = scene_split(scenes, seed=seed)
    log(
        f"split by scene: {len(split.train_scenes)} training scene(s) on {len(split.train_images)} image(s), "
        f"{len(split.held_scenes)} held out on {len(split.held_images)} image(s)"
        + ("" if split.held_scenes else " (one group of scenes sharing images: nothing to hold out)")
    )
    shapes = {i: px.shape[:2] for i, px in images.items()}
    collected = real_pairs_collect(config=config, scenes=scenes, shapes=shapes, log=log)  # type: ignore[arg-type]
    return images, split, collected


def held_out_collect(*, config: CvaaConfig, seed: int, log: Log) -> HeldOut:
    """The split and the held-out scenes' real pairs, without building any training source (a checkpoint
    trained elsewhere is calibrated with these). Raises MediaError when there is no image at all."""
    images, split, collected = _collect(config, seed, log)
    return HeldOut(images, split, _by_image(collected, split.held_scenes))


def sources_collect(*, config: CvaaConfig, seed: int, log: Log) -> Sources:
    """Every pair source the platform has, split by scene (module doc). Raises MediaError when there is
    no image at all."""
    from media_tools.cvaa import SyntheticPairs

    images, split, collected = _collect(config, seed, log)
    train_images = {i: px for i, px in images.items() if i in split.train_images or not split.train_images}
    log(f"self-supervised: {len(train_images)} satellite image(s), crops warped as oblique drone views")
    synthetic = {i: SyntheticPairs.from_config(pixels, config) for i, pixels in train_images.items()}
    return _assemble(config, images, collected, split, synthetic, log)


def _by_image(collected: Collected, scenes: frozenset[int]) -> dict[int, list[Pair]]:
    out: dict[int, list[Pair]] = {}
    for tagged in collected.pairs:
        if tagged.scene_id in scenes:
            out.setdefault(tagged.image_id, []).append(tagged.pair)
    return out


def _assemble(
    config: CvaaConfig,
    images: dict[int, np.ndarray],
    collected: Collected,
    split: SceneSplit,
    synthetic_by_image: dict[int, SyntheticPairs],
    log: Log,
) -> Sources:
    from media_tools.cvaa import MixedPairs, RealPairs

    kw: dict[str, Any] = {"input_size": config.input_size, "rotations": config.rotations}
    synthetic = list(synthetic_by_image.values())
    train_pairs, held_pairs = _by_image(collected, split.train_scenes), _by_image(collected, split.held_scenes)
    real = [(RealPairs(images[i], p, **kw), len(p)) for i, p in train_pairs.items()]
    val_parts = [RealPairs(images[i], p, **kw).fixed() for i, p in held_pairs.items()]
    n_train = sum(n for _, n in real)
    share = min(REAL_SHARE, REAL_SHARE * n_train / (n_train + REAL_HALF_AT) * 2) if n_train else 0.0
    sources: list[PairSource] = [*synthetic, *(r for r, _ in real)]
    weights = [(1 - share) / len(synthetic)] * len(synthetic) + [share * n / n_train for _, n in real]
    # A seed of its own: training batches use [seed, step] generators, so these pairs are never drawn.
    val_parts.insert(
        0, MixedPairs(synthetic, [1.0] * len(synthetic)).batch(np.random.default_rng(2**31), SYNTHETIC_VAL)
    )
    val = (np.concatenate([v[0] for v in val_parts]), np.concatenate([v[1] for v in val_parts]))
    held_out = len(val[0]) - SYNTHETIC_VAL
    log(f"validation: {SYNTHETIC_VAL} self-supervised pairs and {held_out} real pair(s) of held-out scenes")
    log(f"batches: {share:.0%} real pairs ({n_train} of training scenes), the rest self-supervised")
    counts = {
        "self-supervised images": len(synthetic),
        "train": collected.counts(split.train_scenes),
        "held_out": collected.counts(split.held_scenes),
        "placements not used": dict(sorted(collected.skipped.items())),
        "min_placement_confidence": settings.SKYMARK_CVAA_TRAIN_MIN_CONFIDENCE,
    }
    kinds: list[tuple[str, int, list[Pair]]] = [("synthetic", i, []) for i in synthetic_by_image]
    kinds += [("real", i, p) for i, p in train_pairs.items()]
    recipe = [(kind, i, pairs, w) for (kind, i, pairs), w in zip(kinds, weights, strict=True)]
    return Sources(MixedPairs(sources, weights), val, split, images, held_pairs, counts, recipe)


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
        sources = sources_collect(config=config, seed=run.seed, log=say)
        device = run.options.get("device") or settings.SKYMARK_CVAA_DEVICE
        result = train(
            sources.train, config, steps=run.steps, seed=run.seed, val_pairs=sources.val,
            device=device, threads=run.options.get("threads"), progress=report, log=say,
        )  # fmt: skip
        data, calibrated = calibrate_checkpoint(
            data=result.checkpoint_bytes, images=sources.images, held_pairs=sources.held_pairs,
            held_images=sources.split.held_images, split=sources.split.to_dict(), seed=run.seed,
            device=result.device, log=say,
        )  # fmt: skip
        checkpoint, _ = checkpoint_create(
            data=data,
            name=f"cvaa-{preset}-{result.weights_sha256[:8]}.pt",
            origin=CvaaCheckpoint.Origin.TRAINED,
            created_by=run.created_by,
            metrics={**_metrics(run, result, sources), **calibrated},
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
        f"{sum(sources.counts['train'].values())} real pairs in training, "
        f"{sum(sources.counts['held_out'].values())} in {len(sources.split.held_scenes)} held-out scene(s)"
    )
    _finish(run_id, state=CvaaTraining.State.SUCCEEDED, progress=100, detail=detail, checkpoint=checkpoint)
    return jobs


def _metrics(run: CvaaTraining, result: Any, sources: Sources) -> dict[str, Any]:
    loss_first, loss_last = result.loss_summary()
    return {
        "steps": run.steps,
        "seed": run.seed,
        "preset": run.options.get("preset", "small"),
        "device": result.device,
        "batch_size": result.batch_size,
        "seconds": round(result.seconds, 1),
        "best_step": result.best_step,
        "val_recall_at_1": result.best_recall_at_1,
        "loss_first": round(loss_first, 4),
        "loss_last": round(loss_last, 4),
        "pairs": sources.counts,
        "split": sources.split.to_dict(),
        "steps_per_s": round(len(result.history) / result.seconds, 3) if result.seconds else None,
        "training_run": run.id,
    }


def training_create(*, steps: int, seed: int, options: dict[str, Any], created_by: Any | None) -> CvaaTraining:
    """A pending training run (the command runs it here; the API enqueues it for a `gpu` worker)."""
    return CvaaTraining.objects.create(steps=steps, seed=seed, options=options, created_by=created_by)
