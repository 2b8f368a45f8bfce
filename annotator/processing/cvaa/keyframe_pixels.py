"""Keyframe pixels for the placements job, decoded on demand (placements.py)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import overload

import numpy as np

from annotator.models import Keyframe
from annotator.storage import local_copy
from media_tools import MediaError

# How many decoded keyframes stay in memory at once while chaining walks the video.
FRAMES_KEPT = 8


class KeyframePixels(Sequence[np.ndarray]):
    """The keyframes' pixels in time order, decoded when asked for and a few kept: chaining walks the
    video once, and a long one would not fit in memory decoded."""

    def __init__(self, keyframes: Sequence[Keyframe]) -> None:
        self.keyframes = list(keyframes)
        self._kept: OrderedDict[int, np.ndarray] = OrderedDict()
        self._sizes: dict[int, tuple[int, int]] = {}

    def __len__(self) -> int:
        return len(self.keyframes)

    @overload
    def __getitem__(self, i: int) -> np.ndarray: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[np.ndarray]: ...
    def __getitem__(self, i: int | slice) -> np.ndarray | Sequence[np.ndarray]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if i in self._kept:
            self._kept.move_to_end(i)
            return self._kept[i]
        pixels = self._load(i)
        self._kept[i] = pixels
        if len(self._kept) > FRAMES_KEPT:
            self._kept.popitem(last=False)
        return pixels

    def __iter__(self) -> Iterator[np.ndarray]:
        return (self[i] for i in range(len(self)))

    def size(self, i: int) -> tuple[int, int]:
        """(width, height) of keyframe i's image, read from its header once."""
        if i not in self._sizes:
            from PIL import Image

            name = self.keyframes[i].image.name or ""
            try:
                with local_copy(name) as path, Image.open(path) as im:
                    self._sizes[i] = (int(im.width), int(im.height))
            except (OSError, ValueError) as exc:
                raise MediaError(f"{name}: keyframe image cannot be read ({exc})") from exc
        return self._sizes[i]

    def _load(self, i: int) -> np.ndarray:
        from media_tools.cvaa import load_rgb

        with local_copy(self.keyframes[i].image.name or "") as path:
            pixels = load_rgb(path)  # MediaError naming the file
        self._sizes[i] = (int(pixels.shape[1]), int(pixels.shape[0]))
        return pixels
