"""Writes of CVAA that people ask for: upload or activate a checkpoint, start a training run. Each
enqueues what follows (preview jobs, the training task) after commit."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from annotator.models import CvaaCheckpoint, CvaaTraining
from annotator.processing.tasks import enqueue_jobs, enqueue_training

from .checkpoints import checkpoint_activate, checkpoint_create
from .training import training_create


@transaction.atomic
def checkpoint_upload(*, file: UploadedFile, created_by: Any, activate: bool) -> tuple[CvaaCheckpoint, bool]:
    """Keep a checkpoint file a user provides, verified first (a bad one: ValidationError on `file` with
    the library's reason, and nothing stored). Returns (checkpoint, created): the same weights again
    give the existing checkpoint. With `activate`, scene previews are recomputed with it."""
    name = file.name or "checkpoint.pt"
    limit = settings.SKYMARK_CVAA_MAX_CHECKPOINT_BYTES
    if (file.size or 0) > limit:
        raise ValidationError({"file": f"{name}: {file.size} bytes is more than the {limit // 2**20} MiB allowed"})
    checkpoint, created = checkpoint_create(
        data=file.read(), name=name, origin=CvaaCheckpoint.Origin.UPLOADED, created_by=created_by
    )
    if activate:
        enqueue_jobs(jobs=checkpoint_activate(checkpoint_id=checkpoint.id))
        checkpoint.refresh_from_db()
    return checkpoint, created


@transaction.atomic
def checkpoint_make_active(*, checkpoint_id: int) -> CvaaCheckpoint:
    """Use this checkpoint for previews from now on; every scene's previews are recomputed."""
    enqueue_jobs(jobs=checkpoint_activate(checkpoint_id=checkpoint_id))
    return CvaaCheckpoint.objects.get(id=checkpoint_id)


@transaction.atomic
def training_start(*, steps: int, seed: int, preset: str, device: str, activate: bool, created_by: Any) -> CvaaTraining:
    """Queue a training run for a `gpu` worker (the CPU when it has no GPU)."""
    options = {"preset": preset, "device": device, "activate": activate}
    run = training_create(steps=steps, seed=seed, options=options, created_by=created_by)
    enqueue_training(run=run)
    return run
