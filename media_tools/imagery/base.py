"""The decoded satellite image that many pictures are drawn on: read once, then cut and scaled for each
picture from memory. A worker drawing the model views of many items of one image keeps it in a
BaseCache, bounded by bytes, so consecutive items do not decode (and download) the image again.

Pictures drawn from a Base are byte for byte those drawn from the file: the same decode, the same
cut and the same scaling, only done once and copied."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from media_tools.errors import MediaError

IntBox = tuple[int, int, int, int]
# Cut-and-scaled pictures kept per image: an item's sheet and its option images share one cut.
PREPARED_KEPT = 4


def open_rgb(src: Path, max_pixels: int) -> Image.Image:
    """The image at `src` decoded to 8-bit RGB; MediaError naming the file when it cannot be."""
    if not src.is_file():
        raise MediaError(f"{src.name}: file not found")
    Image.MAX_IMAGE_PIXELS = None  # the caller's limit below applies instead of Pillow's warning
    try:
        with Image.open(src) as im:
            if im.width * im.height > max_pixels:
                raise MediaError(f"{src.name}: {im.width}×{im.height} px is over the {max_pixels:,} pixel limit")
            return im.convert("RGB")
    except (UnidentifiedImageError, OSError) as exc:
        raise MediaError(f"{src.name}: cannot be read as an image ({exc.__class__.__name__})") from exc


def _nbytes(im: Image.Image) -> int:
    return im.width * im.height * len(im.getbands())


class Base:
    """A decoded image and the pictures recently cut from it. Never draw on what it returns: copy."""

    def __init__(self, image: Image.Image) -> None:
        self.image = image
        self._prepared: OrderedDict[tuple[IntBox | None, int], tuple[Image.Image, float]] = OrderedDict()

    @classmethod
    def open(cls, src: Path, max_pixels: int) -> Base:
        return cls(open_rgb(src, max_pixels))

    @property
    def nbytes(self) -> int:
        return _nbytes(self.image) + sum(_nbytes(im) for im, _ in self._prepared.values())

    def prepared(self, crop: IntBox | None, max_side: int) -> tuple[Image.Image, float]:
        """The `crop` of the image (all of it when None), scaled down when a side is over
        `max_side`, and the scale; shared, so the caller copies before drawing."""
        key = (crop, max_side)
        if key in self._prepared:
            self._prepared.move_to_end(key)
            return self._prepared[key]
        im = self.image if crop is None else self.image.crop(crop)
        s = min(1.0, max_side / max(im.width, im.height))
        if s < 1.0:
            # Bicubic, not Lanczos: a third less time (scaling an item's cut was a sixth of a view),
            # and at these factors it differs from Lanczos by less than the JPEG encoding after it
            # (PSNR 44-47 dB against 32-38 dB at quality 90, on the test orthophoto and textures).
            im = im.resize((max(1, round(im.width * s)), max(1, round(im.height * s))), Image.Resampling.BICUBIC)
        self._prepared[key] = (im, s)
        while len(self._prepared) > PREPARED_KEPT:
            self._prepared.popitem(last=False)
        return im, s


class BaseCache:
    """Decoded images by key (the caller's: the image's identity and its file's version), the least
    recently used dropped once they hold more than `max_bytes`. One per process; not thread-safe."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Hashable, Base] = OrderedDict()
        self.hits = self.misses = 0

    def get(self, key: Hashable, load: Callable[[], Base]) -> Base:
        """The Base under `key`, loaded (and kept) on a miss. A load that raises keeps nothing."""
        if key in self._entries:
            self.hits += 1
            self._entries.move_to_end(key)
            base = self._entries[key]
        else:
            self.misses += 1
            base = self._entries[key] = load()
        self._shrink(keep=key)
        return base

    def _shrink(self, *, keep: Hashable) -> None:
        # The entry in use stays even when it alone is over the limit; the next miss drops it.
        total = sum(b.nbytes for b in self._entries.values())
        while total > self.max_bytes and len(self._entries) > 1:
            oldest = next(iter(self._entries))
            if oldest == keep:
                self._entries.move_to_end(oldest)
                continue
            total -= self._entries.pop(oldest).nbytes
        if total > self.max_bytes and self.max_bytes <= 0:
            self._entries.clear()

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
