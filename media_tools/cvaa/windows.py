"""Sliding-window geometry on a satellite image: pure numpy, no pixels.

Boxes are [x1, y1, x2, y2] in the image's pixels, corner convention (media_tools.geo): (0, 0) is the
top-left corner of the top-left pixel. Angles are degrees clockwise: a window at angle a shows the ground
turned so that its "up" points a degrees clockwise from the image's up (see views.sample_view).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class WindowSpec:
    """Which windows to cut.

    `sizes`: window sides as fractions of the image's shorter side (one scale each; a side never exceeds
    the shorter side). `overlap`: the least share of its side a window shares with its neighbour along x
    and along y; positions are spread evenly so the last window is flush with the far edge, which makes
    the actual overlap at least this. `rotations`: degrees, each box is embedded once per rotation.
    `min_side_px`: scales that would give smaller windows are dropped (too few pixels to recognise).
    """

    sizes: tuple[float, ...] = (0.15, 0.25, 0.4, 0.6)
    overlap: float = 0.5
    rotations: tuple[float, ...] = (0.0,)
    min_side_px: int = 16

    def __post_init__(self) -> None:
        if not self.sizes or any(not 0 < s <= 1 for s in self.sizes):
            raise ValueError(f"sizes must be fractions in (0, 1], got {self.sizes}")
        if not 0 <= self.overlap < 1:
            raise ValueError(f"overlap must be in [0, 1), got {self.overlap}")
        if not self.rotations:
            raise ValueError("rotations needs at least one angle")
        object.__setattr__(self, "sizes", tuple(float(s) for s in self.sizes))
        object.__setattr__(self, "rotations", tuple(float(r) % 360 for r in self.rotations))

    def key(self) -> str:
        """A short stable digest: part of the window cache's key, since other windows mean other embeddings."""
        text = json.dumps([self.sizes, self.overlap, self.rotations, self.min_side_px])
        return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Windows:
    """`boxes` (n, 4) float64 and `angles` (n,) degrees; the boxes come box-major, rotation-minor, so
    boxes[i * r : (i + 1) * r] are one square at each of the r rotations."""

    boxes: np.ndarray
    angles: np.ndarray
    rotations: int

    def __len__(self) -> int:
        return len(self.boxes)

    @property
    def unique_boxes(self) -> np.ndarray:
        return self.boxes[:: self.rotations]


def axis_starts(length: float, side: float, overlap: float) -> np.ndarray:
    """Start positions along one axis: from 0 to length - side, evenly spaced, the fewest that keep the
    step at most side * (1 - overlap). One window when it fills the axis."""
    if side >= length:
        return np.zeros(1)
    step = side * (1 - overlap)
    count = math.ceil((length - side) / step - 1e-9) + 1 if step > 0 else 1
    return np.linspace(0.0, length - side, max(count, 2))


def window_boxes(width: int, height: int, side: float, overlap: float) -> np.ndarray:
    """(n, 4) squares of `side` px covering a width x height image, row by row."""
    xs, ys = axis_starts(width, side, overlap), axis_starts(height, side, overlap)
    x1, y1 = np.meshgrid(xs, ys)
    x1, y1 = x1.ravel(), y1.ravel()
    return np.column_stack([x1, y1, np.minimum(x1 + side, width), np.minimum(y1 + side, height)])


def window_sides(width: int, height: int, spec: WindowSpec) -> list[float]:
    """The distinct window sides in pixels for this image, smallest first."""
    short = min(width, height)
    sides = sorted({round(min(s * short, short), 3) for s in spec.sizes})
    kept = [s for s in sides if s >= spec.min_side_px]
    return kept or [float(short)]  # a tiny image still gets one whole-image window


def make_windows(width: int, height: int, spec: WindowSpec) -> Windows:
    """Every window of `spec` on a width x height image, each square repeated at every rotation."""
    boxes = np.concatenate([window_boxes(width, height, s, spec.overlap) for s in window_sides(width, height, spec)])
    rot = len(spec.rotations)
    return Windows(np.repeat(boxes, rot, axis=0), np.tile(np.asarray(spec.rotations), len(boxes)), rot)


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of boxes (n, 4) against boxes (m, 4): (n, m)."""
    a, b = np.atleast_2d(a).astype(float), np.atleast_2d(b).astype(float)
    ix = np.clip(np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0]), 0, None)
    iy = np.clip(np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1]), 0, None)
    inter = ix * iy
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def view_axes(angle_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors, in image pixels, of a view's right and down directions when it is turned clockwise
    by `angle_deg` (y points down, so clockwise on screen is a positive angle here)."""
    a = math.radians(angle_deg)
    return np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])


def view_quad(cx: float, cy: float, side: float, angle_deg: float) -> np.ndarray:
    """Corners (4, 2) of a turned square window in image pixels: the view's TL, TR, BR, BL."""
    right, down = view_axes(angle_deg)
    half = side / 2
    unit = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float)
    return np.array([cx, cy]) + half * (unit[:, :1] * right + unit[:, 1:] * down)


def view_affine(cx: float, cy: float, side: float, angle_deg: float, out: int) -> np.ndarray:
    """2x3 matrix from an out x out view's pixel (OpenCV convention: centres at integers) to the source
    pixel (OpenCV convention too), for cv2.warpAffine(..., flags=WARP_INVERSE_MAP)."""
    right, down = view_axes(angle_deg)
    scale = side / out
    # Output centre u + 0.5 (corner convention) maps to c + scale * (u + 0.5 - out / 2); the source
    # position then drops the same half pixel to return to OpenCV's convention.
    offset = np.array([cx, cy]) + scale * (0.5 - out / 2) * (right + down) - 0.5
    return np.column_stack([scale * right, scale * down, offset])


@dataclass(frozen=True)
class HeatmapCover:
    """Which heatmap cells each box covers, sorted by cell, so a per-cell max over boxes is one gather
    plus one np.maximum.reduceat (no Python loop per query)."""

    shape: tuple[int, int]  # (rows, cols) of the heatmap
    cell_px: float  # image pixels per heatmap cell
    cells: np.ndarray  # flat index of each covered cell, one per run of `boxes`
    starts: np.ndarray  # where each cell's run begins in `boxes`
    boxes: np.ndarray  # box index per (cell, box) pair, grouped by cell

    def paint(self, box_scores: np.ndarray, empty: float) -> np.ndarray:
        """The heatmap: each cell holds the highest score of the boxes covering its centre."""
        heat = np.full(self.shape[0] * self.shape[1], empty, dtype=np.float32)
        if len(self.boxes):
            heat[self.cells] = np.maximum.reduceat(box_scores[self.boxes], self.starts)
        return heat.reshape(self.shape)


def heatmap_cover(width: int, height: int, boxes: np.ndarray, max_cells: int = 64) -> HeatmapCover:
    """Cover table for a heatmap whose longer side has `max_cells` cells."""
    cell = max(width, height) / max_cells
    cols, rows = max(1, math.ceil(width / cell)), max(1, math.ceil(height / cell))
    pair_cells, pair_boxes = [], []
    for index, (x1, y1, x2, y2) in enumerate(boxes):
        # A cell belongs to a box when the cell's centre ((i + 0.5) * cell) lies inside it.
        c0, c1 = math.ceil(x1 / cell - 0.5), math.floor(x2 / cell - 0.5)
        r0, r1 = math.ceil(y1 / cell - 0.5), math.floor(y2 / cell - 0.5)
        cs, rs = np.arange(max(c0, 0), min(c1, cols - 1) + 1), np.arange(max(r0, 0), min(r1, rows - 1) + 1)
        flat = (rs[:, None] * cols + cs[None, :]).ravel()
        pair_cells.append(flat)
        pair_boxes.append(np.full(len(flat), index))
    cells = np.concatenate(pair_cells) if pair_cells else np.zeros(0, int)
    owners = np.concatenate(pair_boxes) if pair_boxes else np.zeros(0, int)
    order = np.argsort(cells, kind="stable")
    cells, owners = cells[order], owners[order]
    unique, starts = np.unique(cells, return_index=True)
    return HeatmapCover((rows, cols), cell, unique, starts, owners)
