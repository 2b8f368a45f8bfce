"""Where on a satellite image the wrong options of the lettered tasks may go: inside the image and
inside its valid-data area, so that no option sits on a black or transparent border that a model
could reject without watching the video. Built in one place from a SatelliteImage (image_area)."""

from __future__ import annotations

import random
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate
from typing import Any, TypeAlias

import shapely
from shapely.geometry import MultiPolygon, Polygon, box, shape
from shapely.geometry.base import BaseGeometry

import media_tools
from annotator.models import SatelliteImage
from annotator.processing.valid_area import satellite_image_valid_area_update
from media_tools.imagery.valid_area import area_share, border_precision_px

from .errors import TemplateError
from .spatial import XY

# The valid area is traced on a downsampled mask and simplified by half a mask cell, so its border
# is only accurate to about a cell and a half of that mask (a few pixels on most images). A region
# or track may cross it by this many cells and still count as inside: refusing it would reject
# options that are really on data, and a sliver that thin is not something a model could spot.
BORDER_TOLERANCE_CELLS = 1.5

Area: TypeAlias = Polygon | MultiPolygon


class Sampler:
    """Uniform random points inside a polygonal area: a triangle picked by area, then a point in it."""

    def __init__(self, area: BaseGeometry):
        triangles = [] if area.is_empty else list(shapely.constrained_delaunay_triangles(area).geoms)
        self.triangles = [list(t.exterior.coords)[:3] for t in triangles if t.area > 0]
        self.cumulative = list(accumulate(Polygon(t).area for t in self.triangles))

    def __call__(self, rng: random.Random) -> XY | None:
        """A point drawn with `rng`, or None when the area is empty."""
        if not self.triangles:
            return None
        index = min(bisect_right(self.cumulative, rng.random() * self.cumulative[-1]), len(self.triangles) - 1)
        (ax, ay), (bx, by), (cx, cy) = self.triangles[index]
        u, v = rng.random(), rng.random()
        if u + v > 1:  # fold the far half of the parallelogram back into the triangle
            u, v = 1 - u, 1 - v
        return ax + u * (bx - ax) + v * (cx - ax), ay + u * (by - ay) + v * (cy - ay)


@dataclass(frozen=True, eq=False)
class ImageArea:
    """A width x height image (pixels, x right, y down) and the part of it that has data."""

    width: float
    height: float
    valid: Area
    tolerance_px: float = 0.0

    @classmethod
    def whole(cls, width: float, height: float) -> ImageArea:
        """An image with data everywhere."""
        return cls(width, height, box(0, 0, width, height))

    @cached_property
    def frame(self) -> Polygon:
        return box(0, 0, self.width, self.height)

    @cached_property
    def share(self) -> float:
        """The valid area's share of the image, 0..1."""
        return area_share(self.valid, int(self.width), int(self.height)) if self.width and self.height else 0.0

    @cached_property
    def is_whole(self) -> bool:
        return bool(self.valid.covers(self.frame))

    @cached_property
    def _tolerant(self) -> BaseGeometry:
        grown = self.valid.buffer(self.tolerance_px).intersection(self.frame)
        shapely.prepare(grown)
        return grown

    @cached_property
    def sampler(self) -> Sampler:
        """Random points of the valid area."""
        return Sampler(self.valid)

    def covers(self, geometry: BaseGeometry) -> bool:
        """True when `geometry` lies inside the image and inside its valid area (within tolerance_px)."""
        return bool(self._tolerant.covers(geometry))

    def inset(self, margin: float) -> BaseGeometry:
        """The places at least `margin` inside the valid area's border (and so the image's edge)."""
        return self.valid.buffer(-margin) if margin > 0 else self.valid

    def where(self) -> str:
        """Where options go, as an error message says it."""
        if self.is_whole:
            return "inside the image"
        share = f"{self.share:.0%} of it"
        return f"inside the part of the image that has data ({share}; black or transparent borders are left out)"

    def provenance(self) -> dict[str, Any]:
        """What an item records about it: candidates were drawn only inside the valid area."""
        return {"valid_area_share": round(self.share, 3), "valid_area_tolerance_px": round(self.tolerance_px, 1)}


def _stored_area(image: SatelliteImage) -> dict[str, Any]:
    """The image's stored valid area; traced from the file now (and stored) for an image processed
    before the valid-area job existed."""
    if image.valid_area is None and image.pk is not None:
        # Another compile may have traced it since this row was read.
        image.valid_area = SatelliteImage.objects.filter(id=image.pk).values_list("valid_area", flat=True).first()
    if image.valid_area is None:
        try:
            image.valid_area = satellite_image_valid_area_update(image_id=image.pk)
        except media_tools.MediaError as exc:
            raise TemplateError(
                "satellite_image",
                f"{exc}; wrong options are placed where the image has data, so ask an admin to re-import the image",
            ) from exc
    return dict(image.valid_area)


def image_area(image: SatelliteImage) -> ImageArea:
    """The image's size and valid-data area, for the distractor generators."""
    valid = shape(_stored_area(image))
    if not isinstance(valid, Polygon | MultiPolygon):
        valid = MultiPolygon()
    cell = border_precision_px(image.width, image.height)
    return ImageArea(image.width, image.height, valid, tolerance_px=BORDER_TOLERANCE_CELLS * cell)


__all__ = ["BORDER_TOLERANCE_CELLS", "ImageArea", "Sampler", "image_area"]
