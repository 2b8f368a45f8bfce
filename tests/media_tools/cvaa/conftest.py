"""Fixtures for media_tools.cvaa: real satellite pixels, a tiny config, and tiny trained checkpoints.

Training runs on the CPU with two threads at most (the test machines have two cores)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from media_tools.cvaa import CvaaConfig, SyntheticPairs, load_rgb
from media_tools.cvaa import matching as matching_module

ROTTERDAM_RGB = "satellite/spacenet6_rotterdam_rgb8_1m_derived.tif"
BRIGHTON = "brighton_beach"


@pytest.fixture(scope="session", autouse=True)
def _two_threads() -> None:
    import torch

    torch.set_num_threads(2)


@pytest.fixture(scope="session")
def rotterdam(testdata: Path) -> np.ndarray:
    """Rotterdam at 1 m, 300 x 300 RGB (SpaceNet 6, see SOURCES.md)."""
    return load_rgb(testdata / ROTTERDAM_RGB)


@pytest.fixture(scope="session")
def tiny() -> CvaaConfig:
    return CvaaConfig.tiny()


def _train_bytes(image: np.ndarray, config: CvaaConfig, seed: int) -> bytes:
    from media_tools.cvaa import train

    source = SyntheticPairs.from_config(image, config)
    return train(source, config, steps=3, seed=seed, val_size=16).checkpoint_bytes


@pytest.fixture(scope="session")
def tiny_checkpoint(rotterdam: np.ndarray, tiny: CvaaConfig) -> bytes:
    """A tiny model after three steps: enough to be a real checkpoint, not to retrieve anything."""
    return _train_bytes(rotterdam, tiny, seed=1)


@pytest.fixture(scope="session")
def other_checkpoint(rotterdam: np.ndarray, tiny: CvaaConfig) -> bytes:
    """Same config, another seed: other weights."""
    return _train_bytes(rotterdam, tiny, seed=2)


@pytest.fixture
def described(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, ...]]:
    """The shapes of the images described (sift_features, the one describing function), in order."""
    shapes: list[tuple[int, ...]] = []
    real = matching_module.sift_features

    def counted(image: np.ndarray, **kw: Any) -> Any:
        shapes.append(image.shape)
        return real(image, **kw)

    monkeypatch.setattr(matching_module, "sift_features", counted)
    return shapes
