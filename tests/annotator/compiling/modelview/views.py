"""Many pending model views on one satellite image, quickly: one item compiled through the service,
then copies of its row (same provenance, so the same drawing), each with a pending view."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
from PIL import Image

from annotator.compiling.services import item_compile
from annotator.models import Item, ModelView, SatelliteImage
from tests.factories import MarkFactory, SatelliteImageFactory, SceneFactory


def textured_png(width: int, height: int, seed: int = 0) -> bytes:
    """Ripples and grain, so decoding and JPEG encoding do real work (a flat image costs nothing)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width]
    bands = [128 + 90 * np.sin(xx / (29.0 + 7 * k) + seed) * np.cos(yy / (17.0 + 5 * k)) for k in range(3)]
    pixels = np.stack(bands, -1) + rng.integers(-25, 25, (height, width, 3))
    out = io.BytesIO()
    Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(out, format="PNG")
    return out.getvalue()


def textured_image(width: int = 640, height: int = 480, seed: int = 0) -> SatelliteImage:
    return SatelliteImageFactory(width=width, height=height, content=textured_png(width, height, seed))


def item_on(image: SatelliteImage, annotator: Any, *, x: float = 40) -> Item:
    """A Target Visibility item (its view: the whole image with one region drawn)."""
    scene = SceneFactory(satellite_images=[image], annotators=[annotator])
    square = [[x, 30], [x + 80, 30], [x + 80, 110], [x, 110], [x, 30]]
    mark = MarkFactory(
        scene=scene,
        author=annotator,
        kind="polygon",
        geometry={"type": "Polygon", "coordinates": [square]},
        label="pier",
        facts={"visible": True},
    )
    return item_compile(user=annotator, task=Item.Task.TARGET_VISIBILITY, mark_ids=[mark.id], seed=1)


def pending_views(item: Item, n: int) -> list[ModelView]:
    """`n` more items drawn like `item`, each with a pending view (nothing queued for them)."""
    copies = []
    for _ in range(n):
        copy = Item.objects.get(id=item.id)
        copy.pk = None
        copies.append(copy)
    made = Item.objects.bulk_create(copies)
    return ModelView.objects.bulk_create([ModelView(item=i) for i in made])
