"""media_tools.imagery.base: a decoded image drawn on many times gives the bytes the file gives,
and the per-process cache keeps images by key within its byte budget."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from media_tools.errors import MediaError
from media_tools.imagery import Shape, draw_option, draw_view
from media_tools.imagery.base import Base, BaseCache


def _textured(path: Path, width: int, height: int) -> Path:
    yy, xx = np.mgrid[0:height, 0:width]
    pixels = np.stack([128 + 90 * np.sin(xx / (23.0 + 9 * k)) * np.cos(yy / 31.0) for k in range(3)], -1)
    Image.fromarray(pixels.astype(np.uint8)).save(path)
    return path


SHAPES = [
    Shape({"type": "Polygon", "coordinates": [[[40, 40], [300, 60], [260, 300], [40, 40]]]}, "lot"),
    Shape({"type": "LineString", "coordinates": [[20, 500], [400, 520], [700, 200]]}, "A", (0.0, 1.0, 2.0)),
    Shape({"type": "Ellipse", "center": [600, 300], "radii": [90, 40], "rotation": 30}, "B"),
    Shape({"type": "Point", "coordinates": [820, 120]}, "C"),
]


@pytest.mark.parametrize("crop", [None, (30, 20, 760, 560)])
@pytest.mark.parametrize("max_side", [4096, 500])
def test_pictures_drawn_from_a_kept_base_are_the_bytes_drawn_from_the_file(
    tmp_path: Path, crop: tuple[int, int, int, int] | None, max_side: int
) -> None:
    # given a textured image, and the same image decoded once into a Base
    src = _textured(tmp_path / "map.png", 900, 640)
    base = Base.open(src, 10**9)
    # when the view and each option are drawn from the file, then twice from the Base (the second
    # time from what the Base kept of the first)
    outputs: dict[str, list[bytes]] = {}
    for run, source in enumerate([src, base, base]):
        draw_view(source, tmp_path / f"view{run}.jpg", SHAPES, crop=crop, max_side=max_side)
        pictures = [(tmp_path / f"view{run}.jpg").read_bytes()]
        for i, shape in enumerate(SHAPES):
            draw_option(source, tmp_path / f"o{run}{i}.jpg", shape, colour=i, crop=crop)
            pictures.append((tmp_path / f"o{run}{i}.jpg").read_bytes())
        outputs[f"run{run}"] = pictures
    # then every picture is byte for byte the same, and drawing never changed the kept image
    assert outputs["run0"] == outputs["run1"] == outputs["run2"]
    assert np.array_equal(np.asarray(base.image), np.asarray(Image.open(src).convert("RGB")))


def test_the_cache_keeps_by_key_and_drops_the_least_recently_used_past_its_bytes() -> None:
    # given a cache of 1 MB and 600 kB images (400 x 500 RGB)
    cache = BaseCache(max_bytes=1_000_000)
    loads: list[str] = []

    def loader(name: str):  # type: ignore[no-untyped-def]
        def load() -> Base:
            loads.append(name)
            return Base(Image.new("RGB", (400, 500)))

        return load

    # when a, a, b, a are asked for
    first = cache.get("a", loader("a"))
    assert cache.get("a", loader("a")) is first
    cache.get("b", loader("b"))  # a and b together are over the budget: a, used least recently, goes
    assert len(cache) == 1
    cache.get("a", loader("a"))
    # then a second "a" is a hit, and "a" after "b" is read again
    assert loads == ["a", "b", "a"] and (cache.hits, cache.misses) == (1, 3)


def test_an_image_that_cannot_be_read_is_not_kept(tmp_path: Path) -> None:
    bad = tmp_path / "map.png"
    bad.write_bytes(b"no longer a picture")
    cache = BaseCache(max_bytes=10**9)
    with pytest.raises(MediaError, match=r"map\.png: cannot be read as an image"):
        cache.get("k", lambda: Base.open(bad, 10**9))
    assert len(cache) == 0


def test_views_decode_to_the_pixels_the_optimised_encoding_gave(tmp_path: Path) -> None:
    """Views were written with Huffman optimisation until it was dropped for speed: the files
    differ, what a model is given (the decoded pixels) does not."""
    # given a view drawn now
    src = _textured(tmp_path / "map.png", 900, 640)
    draw_view(src, tmp_path / "view.jpg", SHAPES)
    # when the same picture is encoded as it was before (optimize=True)
    with Image.open(tmp_path / "view.jpg") as drawn:
        now = np.asarray(drawn.convert("RGB"))
    base = Base.open(src, 10**9)
    picture, _ = base.prepared(None, 4096)
    picture = picture.copy()
    from media_tools.imagery.modelview import _draw_all

    _draw_all(picture, SHAPES, 1.0, range(len(SHAPES)))
    picture.save(tmp_path / "before.jpg", format="JPEG", quality=90, optimize=True, subsampling=0)
    # then the files differ, the pixels are the same
    assert (tmp_path / "before.jpg").read_bytes() != (tmp_path / "view.jpg").read_bytes()
    with Image.open(tmp_path / "before.jpg") as before:
        assert np.array_equal(np.asarray(before.convert("RGB")), now)
