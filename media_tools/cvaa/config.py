"""CVAA model and training settings: one frozen dataclass, with a `tiny` preset for tests and `small` default.

Plain numbers only (no torch here), so a checkpoint can store the config as a dict and the Django side
can read or show it without importing torch.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class CvaaConfig:
    """Shapes of the model and how it trains.

    `input_size` is the side in pixels that both satellite windows and drone frames are resampled to;
    `rotations` (degrees, clockwise) are the window orientations tried at inference and the ones training
    views are snapped to, so the model only has to tolerate the rest (half a step either way).
    `batch_size` None picks one that fits the device (see training.auto_batch_size).
    """

    input_size: int = 64
    patch_size: int = 8
    width: int = 128
    depth: int = 4
    heads: int = 4
    mlp_ratio: float = 2.0
    embed_dim: int = 128
    adapter_hidden: int = 256
    gem_p: float = 3.0
    init_temperature: float = 0.07
    max_logit_scale: float = 100.0
    rotations: tuple[float, ...] = (0.0, 90.0, 180.0, 270.0)
    # Synthetic pair geometry, as fractions of the satellite image's shorter side.
    min_view: float = 0.12
    max_view: float = 0.6
    max_tilt: float = 0.35
    lr: float = 1e-3
    weight_decay: float = 0.05
    warmup_steps: int = 20
    batch_size: int | None = None
    eval_every: int = 25

    def __post_init__(self) -> None:
        if self.input_size % self.patch_size:
            raise ValueError(f"input_size {self.input_size} must be a multiple of patch_size {self.patch_size}")
        if self.width % self.heads:
            raise ValueError(f"width {self.width} must be a multiple of heads {self.heads}")
        if not self.rotations:
            raise ValueError("rotations needs at least one angle (0.0 for north-up only)")
        if not 0 < self.min_view <= self.max_view <= 1:
            raise ValueError("need 0 < min_view <= max_view <= 1")
        object.__setattr__(self, "rotations", tuple(float(r) % 360 for r in self.rotations))

    @classmethod
    def tiny(cls, **overrides: Any) -> CvaaConfig:
        """A model that trains on a CPU in seconds: for tests and smoke runs, not for real retrieval."""
        base = {
            "input_size": 32,
            "patch_size": 8,
            "width": 48,
            "depth": 2,
            "heads": 2,
            "embed_dim": 32,
            "adapter_hidden": 64,
            "rotations": (0.0,),
            "warmup_steps": 2,
            "batch_size": 32,
            "eval_every": 5,
            "lr": 2e-3,
        }
        return cls(**{**base, **overrides})

    @classmethod
    def small(cls, **overrides: Any) -> CvaaConfig:
        """The default: minutes on a CPU at small scale; on a GPU the batch grows to fill it."""
        return cls(**overrides)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["rotations"] = list(self.rotations)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CvaaConfig:
        """Inverse of to_dict. Unknown keys are refused (a checkpoint from another model), missing ones
        take today's default. Raises ValueError or TypeError when malformed."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown config keys {unknown}")
        values = dict(data)
        if "rotations" in values:
            values["rotations"] = tuple(float(r) for r in values["rotations"])
        return cls(**values)

    def with_(self, **changes: Any) -> CvaaConfig:
        return replace(self, **changes)
