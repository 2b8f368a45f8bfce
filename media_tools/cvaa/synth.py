"""Self-supervised pairs from a satellite image alone: crops seen as a drone would see them.

Each pseudo-frame is the ground inside a random quadrilateral: a rectangle of drone-frame proportions
(1:1 to 16:9), turned to any heading, widened at the top as an oblique camera sees more ground far away,
then recoloured and blurred (photometric). Its partner is the window that inference would test for
that footprint (pairs.window_for).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .config import CvaaConfig
from .pairs import photometric, window_for
from .views import Pyramid
from .windows import view_axes


class SyntheticPairs:
    """Pseudo drone/satellite pairs from one satellite image array (any size, grey/RGB/RGBA, any type).

    `min_view`/`max_view`: frame size as a share of the image's shorter side (the ground a frame covers);
    `max_tilt`: how much wider the far edge gets (0 is nadir); `rotations`: the inference rotations, and
    with them how far headings spread (full circle when they cover it, else ±15° around them).
    `region` (x1, y1, x2, y2) keeps footprints inside part of the image, e.g. to hold out validation ground.
    """

    def __init__(
        self,
        image: np.ndarray,
        *,
        input_size: int,
        rotations: Sequence[float] = (0.0,),
        min_view: float = 0.12,
        max_view: float = 0.6,
        max_tilt: float = 0.35,
        region: Sequence[float] | None = None,
    ) -> None:
        self.pyramid = Pyramid(image)
        w, h = self.pyramid.width, self.pyramid.height
        self.region = np.asarray(region if region is not None else (0, 0, w, h), float)
        self.input_size = input_size
        self.rotations = tuple(rotations)
        short = min(self.region[2] - self.region[0], self.region[3] - self.region[1])
        self.sides = (min_view * short, max_view * short)
        self.max_tilt = max_tilt
        self.spread = 180 / len(self.rotations) if len(self.rotations) > 1 else 15.0

    @classmethod
    def from_config(
        cls, image: np.ndarray, config: CvaaConfig, region: Sequence[float] | None = None
    ) -> SyntheticPairs:
        """With the sizes, tilt and rotations of a CvaaConfig."""
        return cls(
            image,
            input_size=config.input_size,
            rotations=config.rotations,
            min_view=config.min_view,
            max_view=config.max_view,
            max_tilt=config.max_tilt,
            region=region,
        )

    def footprint(self, rng: np.random.Generator) -> np.ndarray:
        """A random pseudo-frame footprint (4, 2): TL, TR, BR, BL in image pixels, inside the region."""
        side = rng.uniform(*self.sides)
        aspect = rng.uniform(1.0, 16 / 9)
        half_w, half_h = side * math.sqrt(aspect) / 2, side / math.sqrt(aspect) / 2
        tilt = rng.uniform(0, self.max_tilt)
        # Frame-local corners (right, down): the far (top) edge widens and recedes with the tilt.
        local = np.array(
            [
                [-half_w * (1 + tilt), -half_h * (1 + tilt / 2)],
                [half_w * (1 + tilt), -half_h * (1 + tilt / 2)],
                [half_w * (1 - tilt / 3), half_h],
                [-half_w * (1 - tilt / 3), half_h],
            ]
        )
        heading = float(rng.choice(self.rotations)) + rng.uniform(-self.spread, self.spread)
        right, down = view_axes(heading)
        offsets = local[:, :1] * right + local[:, 1:] * down
        return self._place(offsets, rng)

    def _place(self, offsets: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        x1, y1, x2, y2 = self.region
        low, high = np.array([x1, y1]) - offsets.min(axis=0), np.array([x2, y2]) - offsets.max(axis=0)
        if np.any(high < low):  # larger than the region once turned: shrink it to fit
            span = offsets.max(axis=0) - offsets.min(axis=0)
            shrink = float(np.min((self.region[2:] - self.region[:2]) / span)) * 0.98
            return self._place(offsets * shrink, rng)
        return offsets + rng.uniform(low, high)

    def pair(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(pseudo-frame, satellite view, footprint quad) for one random footprint."""
        quad = self.footprint(rng)
        frame = photometric(self.pyramid.sample_quad(quad, self.input_size), rng)
        view = self.pyramid.sample_view(*window_for(quad, self.rotations), self.input_size)
        return frame, view, quad

    def batch(self, rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
        items = [self.pair(rng) for _ in range(size)]
        return np.stack([i[0] for i in items]), np.stack([i[1] for i in items])
