"""CVAA checkpoint files: verify and store one, make one active, load the active one for inference.

A file is verified by media_tools.cvaa.load_checkpoint (format tag, recorded weight hash, weights that
fit their config) before anything is stored, so a corrupt upload leaves no row and no file."""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction

from annotator.models import CvaaCheckpoint, MediaJob, Scene
from annotator.processing.jobs import media_job_again
from annotator.storage import delete_quietly, local_copy
from media_tools.cvaa import CheckpointError

if TYPE_CHECKING:
    from media_tools.cvaa import CvaaEncoder

NO_MODEL = (
    "no active CVAA checkpoint: train one (manage.py train_cvaa, or POST /api/cvaa/trainings/) "
    "or upload one (POST /api/cvaa/checkpoints/), and the previews follow"
)


def checkpoint_active() -> CvaaCheckpoint | None:
    return CvaaCheckpoint.objects.filter(active=True).first()


def checkpoint_create(
    *, data: bytes, name: str, origin: str, created_by: Any | None, metrics: dict[str, Any] | None = None
) -> tuple[CvaaCheckpoint, bool]:
    """Verify checkpoint bytes and keep them (file + row); returns (checkpoint, created): the same weights
    twice give the existing row. A bad file raises ValidationError on "file" with the library's message
    ("<name>: not a CVAA checkpoint (<reason>)") and stores nothing."""
    from media_tools.cvaa import load_checkpoint  # imports torch: only when a checkpoint is handled

    try:
        ckpt = load_checkpoint(data, name=name)
    except CheckpointError as exc:
        raise ValidationError({"file": str(exc)}) from exc
    existing = CvaaCheckpoint.objects.filter(sha256=ckpt.weights_sha256).first()
    if existing is not None:
        return existing, False
    stored = default_storage.save(f"cvaa/checkpoints/{ckpt.weights_sha256[:16]}.pt", ContentFile(data))
    try:
        with transaction.atomic():
            checkpoint = CvaaCheckpoint.objects.create(
                file=stored,
                original_name=name[:255],
                sha256=ckpt.weights_sha256,
                size_bytes=len(data),
                config=ckpt.config.to_dict(),
                metrics={**_plain(ckpt.meta), **(metrics or {})},
                origin=origin,
                created_by=created_by,
            )
    except Exception:
        delete_quietly([stored])
        raise
    return checkpoint, True


def _plain(meta: dict[str, Any]) -> dict[str, Any]:
    """The scalar entries of a file's own metadata (an uploaded file may carry anything torch can load),
    and its calibration when it is a valid one (a file trained here and exported carries it)."""
    from media_tools.cvaa.calibration import Calibration

    out: dict[str, Any] = {str(k): v for k, v in meta.items() if isinstance(v, str | int | float | bool) or v is None}
    # One that does not parse is not ours to trust: its boxes are then gated by the significance test alone.
    if isinstance(meta.get("calibration"), dict):
        with contextlib.suppress(ValueError):
            out["calibration"] = Calibration.from_dict(meta["calibration"]).to_dict()
    return out


@transaction.atomic
def checkpoint_activate(*, checkpoint_id: int) -> list[MediaJob]:
    """Make this checkpoint the one previews use, and put every scene's preview job back to pending
    (previews of another model are stale; one a worker runs now goes back in line as it ends). Returns
    the jobs to send now: the caller enqueues them
    (tasks.enqueue_jobs), since this module sits below the task layer."""
    checkpoint = CvaaCheckpoint.objects.select_for_update().get(id=checkpoint_id)
    if checkpoint.active:
        return []
    CvaaCheckpoint.objects.filter(active=True).update(active=False)
    CvaaCheckpoint.objects.filter(id=checkpoint.id).update(active=True)
    jobs = []
    for scene in Scene.objects.order_by("id"):
        job, _ = MediaJob.objects.get_or_create(scene=scene, kind=MediaJob.Kind.CVAA)
        # A preview job running with the old model is left to end, then goes back in line.
        if media_job_again(job_id=job.id):
            jobs.append(job)
    return jobs


# Loaded encoders per worker process, by weights and device: a worker handling many scenes loads a
# model once. Small: a worker rarely sees more than the active model and the one before it.
_ENCODERS: OrderedDict[tuple[str, str], CvaaEncoder] = OrderedDict()
_ENCODERS_LOCK = threading.Lock()
_ENCODERS_KEPT = 2


def encoder_for(checkpoint: CvaaCheckpoint) -> CvaaEncoder:
    """The checkpoint's model on this worker's device (settings.SKYMARK_CVAA_DEVICE, else CUDA when
    there is one, else the CPU). Raises CheckpointError naming the file when it is damaged."""
    from media_tools.cvaa import CvaaEncoder

    device = settings.SKYMARK_CVAA_DEVICE or ""
    key = (checkpoint.sha256, device)
    with _ENCODERS_LOCK:
        if key in _ENCODERS:
            _ENCODERS.move_to_end(key)
            return _ENCODERS[key]
    with local_copy(checkpoint.file.name or "") as path:
        encoder = CvaaEncoder.from_checkpoint(path, device=device or None, name=checkpoint.original_name)
    if encoder.weights_sha256 != checkpoint.sha256:
        raise CheckpointError(f"{checkpoint.original_name}: the stored file holds other weights than its record")
    with _ENCODERS_LOCK:
        _ENCODERS[key] = encoder
        while len(_ENCODERS) > _ENCODERS_KEPT:
            _ENCODERS.popitem(last=False)
    return encoder
