"""Training pairs: a drone frame and the satellite window it matches.

A pair source hands out batches of (frames, satellite views), both (n, S, S, 3) uint8 at the model's
input size S. Real pairs come from footprints (footprints.py) or from boxes approved in review; the
self-supervised source (synth.py) makes them from the satellite image alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from .footprints import quad_area, quad_up_angle
from .views import Pyramid, prepare_frame


@dataclass(frozen=True)
class Pair:
    """A drone frame (H, W, 3) and its footprint on the satellite image: `quad` (4, 2) in satellite pixels,
    the frame's TL, TR, BR, BL corners."""

    frame: np.ndarray
    quad: np.ndarray

    @classmethod
    def from_box(cls, frame: np.ndarray, box: Sequence[float]) -> Pair:
        """A frame and an axis-aligned box [x1, y1, x2, y2] on the satellite image (a mark approved in
        review, say): the frame is taken as north-up, filling the box."""
        x1, y1, x2, y2 = (float(v) for v in box)
        if not (x2 > x1 and y2 > y1):
            raise ValueError(f"box must have x2 > x1 and y2 > y1, got {list(box)}")
        return cls(frame, np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], float))


class PairSource(Protocol):
    def batch(self, rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        """(frames, satellite views), each (size, S, S, 3) uint8; row i of one matches row i of the other."""
        ...


def nearest_rotation(angle: float, rotations: Sequence[float]) -> float:
    """The rotation in `rotations` closest to `angle` around the circle."""
    gaps = [abs((angle - r + 180) % 360 - 180) for r in rotations]
    return float(rotations[int(np.argmin(gaps))])


def window_for(quad: np.ndarray, rotations: Sequence[float]) -> tuple[float, float, float, float]:
    """The square window (cx, cy, side, angle) a footprint should be matched with: centred on it, as large
    as its area, turned to the window rotation nearest the frame's up. Training and inference both use
    it, so the model learns the views it will be shown."""
    q = np.asarray(quad, float)
    cx, cy = q.mean(axis=0)
    side = math.sqrt(max(quad_area(q), 1.0))
    return float(cx), float(cy), side, nearest_rotation(quad_up_angle(q), rotations)


def photometric(image: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """Random brightness, contrast, saturation, gamma, blur and noise: another sensor, day and season."""
    img = image.astype(np.float32) / 255
    grey = img.mean(axis=2, keepdims=True)
    img = grey + (img - grey) * (1 + strength * rng.uniform(-0.4, 0.4))  # saturation
    img = (img - 0.5) * (1 + strength * rng.uniform(-0.3, 0.3)) + 0.5 + strength * rng.uniform(-0.15, 0.15)
    img = np.clip(img, 0, 1) ** math.exp(strength * rng.uniform(-0.3, 0.3))
    if rng.random() < 0.5 * strength:
        img = cv2.GaussianBlur(img, (0, 0), sigmaX=rng.uniform(0.3, 1.2))
    img = img + rng.normal(0, strength * rng.uniform(0, 0.02), img.shape).astype(np.float32)
    return np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8)


class RealPairs:
    """Batches from known pairs on one satellite image, with light jitter so a few pairs go further:
    the window moves and grows by up to `jitter` of its side, and both views get colour changes."""

    def __init__(
        self,
        image: np.ndarray,
        pairs: Sequence[Pair],
        *,
        input_size: int,
        rotations: Sequence[float],
        jitter: float = 0.08,
    ) -> None:
        if not pairs:
            raise ValueError("RealPairs needs at least one pair")
        self.pyramid = Pyramid(image)
        self.pairs = list(pairs)
        self.frames = [prepare_frame(p.frame, input_size) for p in self.pairs]
        self.windows = [window_for(p.quad, rotations) for p in self.pairs]
        self.input_size = input_size
        self.jitter = jitter

    def __len__(self) -> int:
        return len(self.pairs)

    def batch(self, rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        picks = rng.integers(0, len(self.pairs), size)
        frames, sats = [], []
        for i in picks:
            cx, cy, side, angle = self.windows[i]
            shift = rng.uniform(-self.jitter, self.jitter, 2) * side
            grow = 1 + rng.uniform(-self.jitter, self.jitter)
            view = self.pyramid.sample_view(cx + shift[0], cy + shift[1], side * grow, angle, self.input_size)
            frames.append(photometric(self.frames[i], rng))
            sats.append(photometric(view, rng, strength=0.3))
        return np.stack(frames), np.stack(sats)

    def fixed(self) -> tuple[np.ndarray, np.ndarray]:
        """Every pair once, without jitter: a validation set."""
        sats = [self.pyramid.sample_view(*w, self.input_size) for w in self.windows]
        return np.stack(self.frames), np.stack(sats)


class MixedPairs:
    """Draws each batch from several sources in proportion to `weights` (say, real pairs and synthetic)."""

    def __init__(self, sources: Sequence[PairSource], weights: Sequence[float]) -> None:
        if len(sources) != len(weights) or not sources or min(weights) < 0 or sum(weights) <= 0:
            raise ValueError("give one non-negative weight per source, not all zero")
        self.sources = list(sources)
        self.weights = np.asarray(weights, float) / sum(weights)

    def batch(self, rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        counts = rng.multinomial(size, self.weights)
        parts = [src.batch(rng, int(n)) for src, n in zip(self.sources, counts, strict=True) if n]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
