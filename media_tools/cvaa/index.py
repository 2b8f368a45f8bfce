"""Window embeddings of one satellite image under one model, cached on disk, and frame queries against them.

The cache file's name carries the image's pixel digest, the weights' digest and the window layout's
digest, and the file repeats them inside, so a changed image, checkpoint or layout never reuses stale
embeddings. This module itself needs no torch: the encoder passed in does the forward passes.
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from .calibration import disjoint_count, evidence
from .located import Located
from .views import Pyramid, image_sha256
from .windows import HeatmapCover, Windows, WindowSpec, box_iou, heatmap_cover, make_windows, view_quad

CACHE_VERSION = 1
CHUNK = 512  # windows sampled and embedded at a time: bounds memory on large images


class Encoder(Protocol):
    """What an index needs from a model (CvaaEncoder has it)."""

    weights_sha256: str

    @property
    def config(self) -> Any: ...

    def embed_frames(self, frames: Any) -> np.ndarray: ...

    def embed_views(self, views: np.ndarray) -> np.ndarray: ...


@dataclass
class IndexStats:
    """`embedded_windows`: windows this index embedded itself (0 when it came from the cache)."""

    embedded_windows: int = 0
    loaded_from_cache: bool = False
    cache_path: Path | None = None


@dataclass
class WindowIndex:
    windows: Windows
    embeddings: np.ndarray  # (n, d) float32 unit vectors, row i for window i
    width: int
    height: int
    image_sha256: str
    weights_sha256: str
    spec: WindowSpec
    stats: IndexStats = field(default_factory=IndexStats)
    heatmap_cells: int = 64

    def __post_init__(self) -> None:
        self.cover: HeatmapCover = heatmap_cover(self.width, self.height, self.windows.unique_boxes, self.heatmap_cells)
        # How many independent places the layout has: the significance test's n (calibration.py).
        self.places = disjoint_count(self.windows.unique_boxes)

    @staticmethod
    def cache_name(image_hash: str, weights_hash: str, spec: WindowSpec) -> str:
        return f"cvaa-windows-{image_hash[:20]}-{weights_hash[:20]}-{spec.key()}.npz"

    @classmethod
    def build(
        cls, image: np.ndarray, encoder: Encoder, *, spec: WindowSpec | None = None, cache_dir: Path | None = None
    ) -> WindowIndex:
        """The index of `image` for `encoder`'s weights. With `cache_dir`, reads the matching cache file when
        there is a valid one (no forward pass), else embeds every window and writes the file (complete or
        not at all; other images' and models' files are left alone). `spec` defaults to the model's
        rotations at the default sizes and overlap."""
        spec = spec or WindowSpec(rotations=encoder.config.rotations)
        digest = image_sha256(image)
        path = cache_dir / cls.cache_name(digest, encoder.weights_sha256, spec) if cache_dir else None
        if path is not None and path.is_file():
            cached = cls._try_load(path, digest, encoder.weights_sha256, spec)
            if cached is not None:
                return cached
        index = cls._embed(image, encoder, spec, digest)
        if path is not None:
            index.save(path)
            index.stats.cache_path = path
        return index

    @classmethod
    def _embed(cls, image: np.ndarray, encoder: Encoder, spec: WindowSpec, digest: str) -> WindowIndex:
        pyramid = Pyramid(image)
        windows = make_windows(pyramid.width, pyramid.height, spec)
        size = encoder.config.input_size
        parts = []
        for start in range(0, len(windows), CHUNK):
            boxes, angles = windows.boxes[start : start + CHUNK], windows.angles[start : start + CHUNK]
            views = [
                pyramid.sample_view((b[0] + b[2]) / 2, (b[1] + b[3]) / 2, b[2] - b[0], a, size)
                for b, a in zip(boxes, angles, strict=True)
            ]
            parts.append(encoder.embed_views(np.stack(views)))
        embeddings = np.concatenate(parts).astype(np.float32)
        stats = IndexStats(embedded_windows=len(windows))
        return cls(windows, embeddings, pyramid.width, pyramid.height, digest, encoder.weights_sha256, spec, stats)

    def save(self, path: Path) -> None:
        """Write the index to `path` (.npz), complete or not at all."""
        header = {
            "version": CACHE_VERSION,
            "width": self.width,
            "height": self.height,
            "image_sha256": self.image_sha256,
            "weights_sha256": self.weights_sha256,
            "spec": [self.spec.sizes, self.spec.overlap, self.spec.rotations, self.spec.min_side_px],
            "rotations": self.windows.rotations,
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.part")
        try:
            with part.open("wb") as handle:
                arrays = {"boxes": self.windows.boxes, "angles": self.windows.angles, "embeddings": self.embeddings}
                np.savez(handle, header=np.array(json.dumps(header)), **arrays)  # type: ignore[arg-type]
            os.replace(part, path)
        finally:
            part.unlink(missing_ok=True)

    @classmethod
    def load(cls, path: Path) -> WindowIndex:
        """Read an index file. Raises ValueError when it is not a readable index of this version."""
        try:
            with np.load(path, allow_pickle=False) as data:
                header = json.loads(str(data["header"]))
                boxes, angles, emb = data["boxes"], data["angles"], data["embeddings"]
        except (OSError, KeyError, ValueError, EOFError) as exc:
            raise ValueError(f"{path.name}: not a readable window index ({exc})") from exc
        if header.get("version") != CACHE_VERSION or len(boxes) != len(emb) or len(angles) != len(emb):
            raise ValueError(f"{path.name}: window index of another version or inconsistent")
        sizes, overlap, rotations, min_side = header["spec"]
        spec = WindowSpec(tuple(sizes), overlap, tuple(rotations), min_side)
        windows = Windows(boxes, angles, int(header["rotations"]))
        stats = IndexStats(loaded_from_cache=True, cache_path=path)
        hashes = (header["image_sha256"], header["weights_sha256"])
        return cls(windows, emb, header["width"], header["height"], *hashes, spec, stats)

    @classmethod
    def _try_load(cls, path: Path, image_hash: str, weights_hash: str, spec: WindowSpec) -> WindowIndex | None:
        try:
            index = cls.load(path)
        except ValueError:
            return None  # a damaged cache file is rebuilt, not reported: it holds nothing a person made
        same = (index.image_sha256, index.weights_sha256, index.spec) == (image_hash, weights_hash, spec)
        return index if same else None

    def box_scores(self, embedding: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per unique box: the best cosine similarity over its rotations, and that rotation's angle."""
        per_window = (self.embeddings @ embedding.astype(np.float32)).reshape(-1, self.windows.rotations)
        best = per_window.argmax(axis=1)
        angles = self.windows.angles.reshape(-1, self.windows.rotations)[np.arange(len(best)), best]
        return per_window[np.arange(len(best)), best], angles

    def locate(self, frame: np.ndarray, encoder: Encoder, *, top_k: int = 5, nms_iou: float = 0.5) -> Located:
        """Top-k boxes for a drone frame: one forward pass, one matrix product, then ranking. Boxes that
        overlap a better one by more than `nms_iou` are skipped, so the k answers are distinct places."""
        if encoder.weights_sha256 != self.weights_sha256:
            raise ValueError("this window index was built with other weights; build it for this model")
        return self.locate_embedding(encoder.embed_frames([frame])[0], top_k=top_k, nms_iou=nms_iou)

    def locate_embedding(self, embedding: np.ndarray, *, top_k: int = 5, nms_iou: float = 0.5) -> Located:
        """As locate, for a frame embedding computed already."""
        scores, angles = self.box_scores(embedding)
        boxes = self.windows.unique_boxes
        keep = _distinct_top(boxes, scores, top_k, nms_iou)
        placed = zip(boxes[keep], angles[keep], strict=True)
        quads = np.array([view_quad((b[0] + b[2]) / 2, (b[1] + b[3]) / 2, b[2] - b[0], a) for b, a in placed])
        heat = self.cover.paint(scores, empty=float(scores.min()) if len(scores) else 0.0)
        quads = quads.reshape(-1, 4, 2)
        # The top box's margin over the rest of the image: what calibration and gating read.
        details = {"evidence": evidence(scores, boxes, places=self.places).to_dict()}
        return Located("cvaa", boxes[keep], scores[keep], angles[keep], quads, heat, self.cover.cell_px, details)


def _distinct_top(boxes: np.ndarray, scores: np.ndarray, top_k: int, nms_iou: float) -> np.ndarray:
    """Greedy non-maximum suppression over the best candidates only (enough to find k distinct boxes)."""
    pool = min(len(scores), max(64, 16 * top_k))
    candidates = np.argpartition(-scores, pool - 1)[:pool] if pool < len(scores) else np.arange(len(scores))
    candidates = candidates[np.argsort(-scores[candidates], kind="stable")]
    keep: list[int] = []
    for i in candidates:
        if keep and box_iou(boxes[i], boxes[keep]).max() > nms_iou:
            continue
        keep.append(int(i))
        if len(keep) == top_k:
            break
    return np.asarray(keep, dtype=int)


def windows_per_image(width: int, height: int, spec: WindowSpec) -> int:
    """How many windows (forward-pass inputs) an image of this size costs to index."""
    return len(make_windows(width, height, spec))
