"""Marks in memory (no database) for template and geometry tests, and georeferences with a known
north: the templates read only the mark's fields and its satellite image's size and georef."""

from __future__ import annotations

import itertools
import random
from typing import Any

from shapely.geometry import LineString, Point
from shapely.geometry.base import BaseGeometry

from annotator.compiling.errors import TemplateError
from annotator.compiling.qa import get_template
from annotator.marking.geometry import region_shape
from annotator.models import Mark, SatelliteImage
from media_tools.geo import georef_from_corners

_IDS = itertools.count(1000)
WIDTH, HEIGHT = 200, 100


def full_area(width: int = WIDTH, height: int = HEIGHT) -> dict[str, Any]:
    """The valid-data area of an image with data everywhere, as the valid-area job stores it."""
    return {"type": "Polygon", "coordinates": [[[0, 0], [width, 0], [width, height], [0, height], [0, 0]]]}


def image(
    *,
    width: int = WIDTH,
    height: int = HEIGHT,
    georef: dict[str, Any] | None = None,
    valid_area: dict[str, Any] | None = None,
) -> SatelliteImage:
    """An image in memory (no file): its valid area is stored, data everywhere unless given."""
    area = valid_area or full_area(width, height)
    return SatelliteImage(id=1, width=width, height=height, georef=georef, valid_area=area)


def north_up_georef(width: int = WIDTH, height: int = HEIGHT) -> dict[str, Any]:
    """About 1.5 km x 1.1 km near Munich, image up = true north."""
    corners = {"tl": (48.01, 11.00), "tr": (48.01, 11.02), "br": (48.00, 11.02), "bl": (48.00, 11.00)}
    return georef_from_corners(corners, width=width, height=height).to_dict()


def east_up_georef(width: int = WIDTH, height: int = HEIGHT) -> dict[str, Any]:
    """The same place photographed turned a quarter: image up is east, image right is south."""
    corners = {"tl": (48.02, 11.02), "tr": (48.00, 11.02), "br": (48.00, 11.00), "bl": (48.02, 11.00)}
    return georef_from_corners(corners, width=width, height=height).to_dict()


def _mark(kind: str, geometry: dict[str, Any], label: str, **fields: Any) -> Mark:
    sat = fields.pop("image", None) or image()
    return Mark(
        id=fields.pop("id", None) or next(_IDS),
        version=1,
        kind=kind,
        geometry=geometry,
        label=label,
        time_start=fields.pop("time_start", 0.0),
        time_end=fields.pop("time_end", None),
        vertex_times=fields.pop("vertex_times", []),
        facts=fields.pop("facts", {}),
        satellite_image=sat,
        **fields,
    )


def box_region(x0: float, y0: float, x1: float, y1: float, label: str = "parking lot", **fields: Any) -> Mark:
    ring = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
    return _mark("polygon", {"type": "Polygon", "coordinates": [ring]}, label, **fields)


def ellipse(cx: float, cy: float, rx: float, ry: float, label: str = "car", rotation: float = 0, **fields: Any) -> Mark:
    geometry = {"type": "Ellipse", "center": [cx, cy], "radii": [rx, ry], "rotation": rotation}
    return _mark("ellipse", geometry, label, **fields)


def point(x: float, y: float, label: str = "car", **fields: Any) -> Mark:
    return _mark("point", {"type": "Point", "coordinates": [x, y]}, label, **fields)


def track(
    points: list[tuple[float, float]], times: list[float] | None = None, label: str = "car", **fields: Any
) -> Mark:
    geometry = {"type": "LineString", "coordinates": [list(p) for p in points]}
    start = fields.pop("time_start", times[0] if times else 0.0)
    return _mark("polyline", geometry, label, vertex_times=list(times or []), time_start=start, **fields)


def candidate_shape(geometry: dict[str, Any]) -> BaseGeometry:
    """A candidate's recorded geometry (point, track or region) as a shapely geometry."""
    if geometry["type"] == "Point":
        return Point(geometry["coordinates"])
    if geometry["type"] == "LineString":
        return LineString(geometry["coordinates"])
    return region_shape("ellipse" if geometry["type"] == "Ellipse" else "polygon", geometry)


def compile_item(task: str, marks: list[Mark], seed: int = 0) -> Any:
    """The template's item for these marks, without the database."""
    return get_template(task).compile(marks, random.Random(seed))


def refusal(task: str, marks: list[Mark], seed: int = 0) -> tuple[str, str]:
    """(field, message) of the template's refusal."""
    try:
        compile_item(task, marks, seed)
    except TemplateError as exc:
        return exc.field, str(exc)
    raise AssertionError("the template compiled an item; a refusal was expected")


def key_of(item: Any) -> Any:
    """The truth behind a yes/no key, whichever way round the question was asked."""
    if item.answer_format != "yes_no":
        return item.answer
    return (item.answer == "yes") == (item.provenance["polarity"] == "positive")
