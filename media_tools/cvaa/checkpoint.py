"""One-file CVAA checkpoints: torch.save of a dict with the config, the weights and their sha256.

Loading uses torch.load(weights_only=True), which unpickles only tensors and plain containers, so a
file a user uploads cannot run code; then it checks the format tag, the hash and that the weights fit
the config. Imports torch.
"""

from __future__ import annotations

import hashlib
import io
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from .config import CvaaConfig
from .errors import CheckpointError
from .model import CvaaModel

FORMAT = "skymark-cvaa"
FORMAT_VERSION = 1


def weights_sha256(state: Mapping[str, torch.Tensor]) -> str:
    """sha256 over every tensor's name, type, shape and bytes, in name order: the same weights give the
    same digest whatever device or file they came from."""
    digest = hashlib.sha256()
    for name in sorted(state):
        tensor = state[name].detach().to("cpu").contiguous()
        digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


@dataclass
class Checkpoint:
    """A model ready for inference (eval mode, on the CPU until moved) with what its file said."""

    model: CvaaModel
    config: CvaaConfig
    weights_sha256: str
    meta: dict[str, Any] = field(default_factory=dict)


def checkpoint_bytes(model: CvaaModel, *, meta: Mapping[str, Any] | None = None) -> bytes:
    """The checkpoint file's content for `model` (weights copied to the CPU; the model is not changed)."""
    state = {k: v.detach().to("cpu").clone() for k, v in model.state_dict().items()}
    payload = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "config": model.config.to_dict(),
        "weights": state,
        "weights_sha256": weights_sha256(state),
        "meta": dict(meta or {}),
    }
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    return buffer.getvalue()


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` so that the file appears complete or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.part")
    try:
        part.write_bytes(data)
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)


def save_checkpoint(model: CvaaModel, path: Path, *, meta: Mapping[str, Any] | None = None) -> str:
    """Write `model` to `path` (complete or not at all) and return its weights' sha256."""
    write_bytes_atomic(path, checkpoint_bytes(model, meta=meta))
    return weights_sha256(model.state_dict())


def load_checkpoint(source: Path | bytes, *, name: str | None = None) -> Checkpoint:
    """A checkpoint from a file or its bytes (`name` labels bytes in messages). Raises CheckpointError
    ("cvaa.pt: not a CVAA checkpoint (…)") when the file is missing, unreadable, truncated, of another
    format, fails its hash, or holds weights that do not fit its config."""
    label = name or (source.name if isinstance(source, Path) else "checkpoint")
    payload = _read(source, label)
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise _bad(label, f"no {FORMAT!r} format tag")
    if payload.get("format_version") != FORMAT_VERSION:
        raise _bad(label, f"format version {payload.get('format_version')!r}, this code reads {FORMAT_VERSION}")
    state, recorded = payload.get("weights"), payload.get("weights_sha256")
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise _bad(label, "no weights")
    if recorded != weights_sha256(state):
        raise _bad(label, "its weights do not match their recorded sha256: the file is corrupt or was altered")
    try:
        config = CvaaConfig.from_dict(payload.get("config") or {})
    except (TypeError, ValueError) as exc:
        raise _bad(label, f"its config is not valid: {exc}")
    model = CvaaModel(config)
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as exc:
        raise _bad(label, f"its weights do not fit its config: {str(exc).splitlines()[0]}")
    model.eval()
    meta = payload.get("meta")
    return Checkpoint(model, config, str(recorded), dict(meta) if isinstance(meta, dict) else {})


def _read(source: Path | bytes, label: str) -> Any:
    if isinstance(source, Path) and not source.is_file():
        raise CheckpointError(f"{label}: no such checkpoint file")
    stream = io.BytesIO(source) if isinstance(source, bytes) else source
    try:
        return torch.load(stream, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for bad files (pickle, zip, EOF, runtime)
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise _bad(label, f"cannot be read: {reason[:200]}")


def _bad(label: str, reason: str) -> CheckpointError:
    return CheckpointError(f"{label}: not a CVAA checkpoint ({reason})")
