"""Training CVAA on a machine outside the platform (a GPU with torch and nothing else), and bringing the
result back.

Export writes the training set a run here would draw from (training.sources_collect: every source and
its weight, the validation set, the split by scene) as a bundle of plain files (media_tools/cvaa/
bundle.py). Import takes the checkpoint trained on it, checks that the platform still splits its scenes
as the bundle did (calibrating on a scene that was trained on would flatter the score), calibrates it on
the held-out scenes exactly as a run here does, keeps it as a trained checkpoint with a succeeded
training run that records the device and rate, and makes it active when asked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotator.models import CvaaCheckpoint, CvaaTraining, MediaJob
from annotator.storage import delete_quietly
from media_tools.cvaa import CheckpointError, CvaaConfig

from .calibrate import calibrate_checkpoint
from .checkpoints import checkpoint_activate, checkpoint_create
from .training import Log, held_out_collect, sources_collect


def training_export(*, out: Path, config: CvaaConfig, seed: int, log: Log) -> dict[str, Any]:
    """Write the bundle for (config, seed) into `out`; returns its meta. MediaError when there is nothing
    to train on."""
    from media_tools.cvaa.bundle import Bundle, SourceSpec, bundle_write

    sources = sources_collect(config=config, seed=seed, log=log)
    specs = [
        SourceSpec(kind=kind, image=str(image_id), weight=weight, pairs=pairs)
        for kind, image_id, pairs, weight in sources.recipe
    ]
    used = {spec.image for spec in specs}
    meta = {"seed": seed, "split": sources.split.to_dict(), "pairs": sources.counts}
    bundle = Bundle(
        config=config,
        seed=seed,
        images={k: px for k, px in ((str(i), px) for i, px in sources.images.items()) if k in used},
        sources=specs,
        val=sources.val,
        meta=meta,
    )
    bundle_write(out, bundle)
    log(f"wrote {out}: {len(specs)} sources on {len(used)} image(s), {len(sources.val[0])} validation pairs")
    return meta


def training_import(
    *, data: bytes, name: str, activate: bool, created_by: Any | None, log: Log
) -> tuple[CvaaTraining, list[MediaJob]]:
    """Calibrate and keep a checkpoint trained on an exported bundle. Returns the succeeded training run
    and the preview jobs activation put back to pending (the caller enqueues them). Raises ValueError
    with the reason when the file is not such a checkpoint or the split no longer matches."""
    from media_tools.cvaa import load_checkpoint

    try:
        ckpt = load_checkpoint(data, name=name)
    except CheckpointError as exc:
        raise ValueError(str(exc)) from exc
    kept = CvaaCheckpoint.objects.filter(sha256=ckpt.weights_sha256).first()
    if kept is not None:
        raise ValueError(f"{name}: these weights are already checkpoint {kept.id} ({kept.original_name})")
    meta = ckpt.meta
    if meta.get("trained_from") != "bundle" or "split" not in meta or "seed" not in meta:
        raise ValueError(f"{name}: not trained on an exported bundle (no split and seed recorded)")
    seed = int(meta["seed"])
    held = held_out_collect(config=ckpt.config, seed=seed, log=log)
    if held.split.to_dict() != meta["split"]:
        raise ValueError(
            f"{name}: the platform now splits its scenes as {held.split.to_dict()}, the bundle was split as "
            f"{meta['split']}: calibrating on a scene it trained on would flatter it; export and train again"
        )
    data, calibrated = calibrate_checkpoint(
        data=data, images=held.images, held_pairs=held.held_pairs, held_images=held.split.held_images,
        split=held.split.to_dict(), seed=seed, device=None, log=log,
    )  # fmt: skip
    metrics = {
        key: meta.get(key)
        for key in ("steps", "best_step", "val_recall_at_1", "device", "device_name", "batch_size", "seconds",
                    "steps_per_s", "loss_first", "loss_last", "pairs", "split", "torch", "cpus", "trained_from")
    }  # fmt: skip
    checkpoint, created = checkpoint_create(
        data=data, name=name, origin=CvaaCheckpoint.Origin.TRAINED, created_by=created_by,
        metrics={**metrics, "seed": seed, **calibrated},
    )  # fmt: skip
    try:
        run, jobs = _record(checkpoint, meta, seed, activate, created_by)
    except Exception:
        if created:  # no checkpoint file without its row and run
            CvaaCheckpoint.objects.filter(id=checkpoint.id).delete()
            delete_quietly([checkpoint.file.name or ""])
        raise
    return run, jobs


@transaction.atomic
def _record(
    checkpoint: CvaaCheckpoint, meta: dict[str, Any], seed: int, activate: bool, created_by: Any | None
) -> tuple[CvaaTraining, list[MediaJob]]:
    now = timezone.now()
    run = CvaaTraining.objects.create(
        steps=int(meta.get("steps") or 1), seed=seed, created_by=created_by, checkpoint=checkpoint,
        options={"device": meta.get("device", ""), "activate": activate, "trained_elsewhere": True},
        state=CvaaTraining.State.SUCCEEDED, progress=100, started_at=now, finished_at=now,
        detail=(
            f"trained elsewhere on {meta.get('device_name') or meta.get('device')}: best recall@1 "
            f"{float(meta.get('val_recall_at_1') or 0):.2f} at step {meta.get('best_step')}/{meta.get('steps')}, "
            f"{meta.get('steps_per_s')} steps/s"
        )[:300],
    )  # fmt: skip
    jobs = checkpoint_activate(checkpoint_id=checkpoint.id) if activate else []
    return run, jobs
