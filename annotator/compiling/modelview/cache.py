"""The satellite images a worker process draws model views on, kept decoded between items.

Consecutive items mostly share an image (a compile batch is one scene), and decoding it (with a
download from object storage) was most of a view's time. The key is the image's row and what the
stored file is now (name, size, modification time, the original's sha256): a rendered-again display
or a replaced file is a new key, so a stale picture is never drawn on; the old entry ages out."""

from __future__ import annotations

from django.conf import settings
from django.core.files.storage import default_storage

from annotator.models import SatelliteImage
from annotator.storage import local_copy
from media_tools.imagery.base import Base, BaseCache

from .plan import image_name

_cache: BaseCache | None = None


def base_cache() -> BaseCache:
    """This process's cache (made on first use, so web processes, which never render, hold none)."""
    global _cache
    if _cache is None:
        _cache = BaseCache(max_bytes=int(settings.SKYMARK_VIEW_CACHE_MB) * 2**20)
    return _cache


def image_key(image: SatelliteImage) -> tuple[object, ...]:
    """What identifies the pixels: the row, and the stored file's name, size and modification time
    (one stat, or one HEAD request on object storage), with the original's digest."""
    name = image_name(image)
    try:
        stamp: object = (default_storage.size(name), default_storage.get_modified_time(name).timestamp())
    except (OSError, NotImplementedError):  # missing file (the read fails with the reason) or no stamp
        stamp = None
    return (image.id, name, image.sha256, stamp)


def image_base(image: SatelliteImage) -> Base:
    """The image decoded to RGB, from this process's cache or read (and kept) now. A file that cannot
    be read raises MediaError naming it, and nothing is kept."""
    key = image_key(image)

    def load() -> Base:
        with local_copy(image_name(image)) as src:
            return Base.open(src, settings.SKYMARK_MAX_IMAGE_PIXELS)

    if key[-1] is None:
        return load()  # nothing tells its versions apart: never kept
    return base_cache().get(key, load)
