"""A loaded CVAA model on a device, turning images into embeddings. Imports torch.

Picks CUDA when there is one, else the CPU; a device asked for that is not there raises DeviceUnavailable.
On CUDA the forward passes run under autocast (bfloat16 where supported, else float16). Counts its work
in `stats`, so callers and tests can tell a cached window index from a rebuilt one without timing anything.
"""

from __future__ import annotations

import contextlib
import platform
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from .checkpoint import load_checkpoint, weights_sha256
from .config import CvaaConfig
from .errors import DeviceUnavailable
from .model import CvaaModel
from .views import prepare_frame


def available_devices() -> list[str]:
    """The torch devices this process can use: "cpu", then "cuda:0".. for each visible GPU, then "mps"."""
    devices = ["cpu"]
    if torch.cuda.is_available():
        devices += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    if torch.backends.mps.is_available():
        devices.append("mps")
    return devices


def pick_device(device: str | torch.device | None = None) -> torch.device:
    """`device` as given ("cpu", "cuda", "cuda:1", "mps"), else CUDA when available, else the CPU.

    Raises DeviceUnavailable naming the device and what is available when it cannot be used here: torch
    itself only fails later, on the first tensor moved there, with an AssertionError about how it was
    compiled, after the caller may have created rows or files."""
    if device is None or device == "":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, ValueError):
        raise DeviceUnavailable(
            f"device {str(device)!r} is not a device name (cpu, cuda, cuda:N, mps); {_choices()}"
        ) from None
    reason = _unusable(dev)
    if reason:
        raise DeviceUnavailable(f"device {str(device)!r} is not available: {reason}; {_choices()}")
    return dev


def _unusable(dev: torch.device) -> str:
    """Why `dev` cannot be used in this process, or "" when it can."""
    if dev.type == "cpu":
        return ""
    if dev.type == "cuda":
        if torch.version.cuda is None:
            # The usual case in Docker: the image was built without --build-arg TORCH_INDEX=<a CUDA index>.
            return f"this torch ({torch.__version__}) is built without CUDA"
        if not torch.cuda.is_available():
            return "torch has CUDA but sees no GPU (driver, container runtime or CUDA_VISIBLE_DEVICES)"
        count = torch.cuda.device_count()
        if dev.index is not None and dev.index >= count:
            return f"there {'is' if count == 1 else 'are'} only {count} GPU{'' if count == 1 else 's'}"
        return ""
    if dev.type == "mps":
        return "" if torch.backends.mps.is_available() else "Apple's Metal (MPS) is not available on this machine"
    return f"{dev.type} devices are not supported by CVAA"


def device_name(device: str | torch.device) -> str:
    """What runs the work, for a record: the GPU's name, or the CPU's model and torch's thread count."""
    dev = torch.device(device)
    if dev.type == "cuda":
        return torch.cuda.get_device_name(dev)
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        lines = []
    name = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), "")
    return f"{name or platform.processor() or 'unknown'} (CPU), {torch.get_num_threads()} torch threads"


def _choices() -> str:
    return f"available here: {', '.join(available_devices())}"


def autocast(device: torch.device) -> contextlib.AbstractContextManager[object]:
    """Mixed precision on CUDA (bfloat16 if the GPU has it, else float16); nothing on the CPU, where
    reduced precision is rarely faster for a model this small."""
    if device.type != "cuda":
        return contextlib.nullcontext()
    dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.autocast("cuda", dtype=dtype)


@dataclass
class EncoderStats:
    frames_embedded: int = 0
    windows_embedded: int = 0
    forward_passes: int = 0


class CvaaEncoder:
    """Embeds drone frames and satellite views with one model. Not thread-safe (one per worker)."""

    def __init__(self, model: CvaaModel, *, weights_sha256: str | None = None, device: str | None = None) -> None:
        self.device = pick_device(device)
        self.model = model.to(self.device).eval()
        self.config: CvaaConfig = model.config
        self.weights_sha256 = weights_sha256 or _digest(model)
        self.stats = EncoderStats()
        self.batch_size = 1024 if self.device.type == "cuda" else 128

    @classmethod
    def from_checkpoint(
        cls, source: Path | bytes, *, device: str | None = None, name: str | None = None
    ) -> CvaaEncoder:
        """Load and verify a checkpoint file (or its bytes). Raises CheckpointError for a bad one."""
        ckpt = load_checkpoint(source, name=name)
        return cls(ckpt.model, weights_sha256=ckpt.weights_sha256, device=device)

    def embed_frames(self, frames: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
        """(n, embed_dim) float32 unit vectors for drone frames of any size (each squeezed to the input)."""
        size = self.config.input_size
        batch = np.stack([prepare_frame(f, size) for f in frames])
        self.stats.frames_embedded += len(batch)
        return self._run(batch, self.model.encode_uav)

    def embed_views(self, views: np.ndarray) -> np.ndarray:
        """(n, embed_dim) float32 unit vectors for satellite views already at the input size (n, S, S, 3)."""
        self.stats.windows_embedded += len(views)
        return self._run(views, self.model.encode_sat)

    def _run(self, images: np.ndarray, encode: object) -> np.ndarray:
        out = []
        with torch.inference_mode(), autocast(self.device):
            for chunk in _chunks(images, self.batch_size):
                tensor = torch.from_numpy(np.ascontiguousarray(chunk)).to(self.device, non_blocking=True)
                out.append(encode(tensor).float().cpu().numpy())  # type: ignore[operator]
                self.stats.forward_passes += 1
        dim = self.config.embed_dim
        return np.concatenate(out) if out else np.zeros((0, dim), np.float32)


def _chunks(images: np.ndarray, size: int) -> Iterator[np.ndarray]:
    for start in range(0, len(images), size):
        yield images[start : start + size]


def _digest(model: CvaaModel) -> str:
    return weights_sha256(model.state_dict())
