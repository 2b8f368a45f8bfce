"""The satellite side of an item as a model is given it: the image with shapes drawn on it and
named as the question names them, and one cropped image per lettered option. An item with lettered
candidates shows one cut of the image for its sheet and every option image alike: the candidates'
bounding box with a margin, kept inside the image's data (candidates_box), so no option is told
apart by where it was cut and no picture is half black border.

Paths and numbers in, files out (JPEG). Shapes are in the image's pixels (x right, y down) as marks
store them: Point, LineString, Polygon, or Ellipse {center, radii, rotation in degrees}. Each shape
gets a colour of its own with a dark halo, so it reads on bright and dark ground alike; a name tag
sits beside it. A trajectory shows where it starts (a ring), where it goes (an arrowhead) and, when
it is timed, its pace (dots at a quarter, half and three quarters of its time span), because wrong
trajectory options may differ from the truth only in direction or in pace."""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import IO, Any

from PIL import Image, ImageDraw, ImageFont

from .base import Base

XY = tuple[float, float]
Box = tuple[float, float, float, float]  # left, top, right, bottom
IntBox = tuple[int, int, int, int]
# Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
PALETTE = ((230, 159, 0), (86, 180, 233), (0, 158, 115), (240, 228, 66), (204, 121, 167), (213, 94, 0), (0, 114, 178))
HALO = (20, 20, 20)
# The view is drawn at full extent; a larger image is scaled down to this longest side first, which
# is still more than current vision-language models take in.
MAX_VIEW_SIDE = 4096
# Option images: the shape plus this share of its longer side around it, at least OPTION_MIN_SIDE px
# of image each way, scaled to at most OPTION_MAX_SIDE.
OPTION_CONTEXT = 0.6
OPTION_MIN_SIDE = 160
OPTION_MAX_SIDE = 768
# The cut around lettered candidates: this share of their bounding box's longer side on every side,
# at least CANDIDATE_MARGIN_PX, so a candidate on the box's edge still shows its surroundings.
CANDIDATE_MARGIN = 0.12
CANDIDATE_MARGIN_PX = 16
JPEG_QUALITY = 90
JPEG_OPTIONS = {"quality": JPEG_QUALITY, "optimize": False, "subsampling": 0}
PACE_FRACTIONS = (0.25, 0.5, 0.75)


@dataclass(frozen=True)
class Shape:
    geometry: Mapping[str, Any]
    name: str  # drawn beside it: "A", "parking lot", "building 2"
    times: tuple[float, ...] = field(default=())  # a trajectory's vertex times, to show its pace


@dataclass(frozen=True)
class Drawn:
    """What was written: the size of the picture and the factor from image pixels to its pixels."""

    width: int
    height: int
    scale: float
    # Where the picture's top-left corner is in the image's pixels (a cut starts inside the image).
    origin: tuple[int, int] = (0, 0)


def _save(im: Image.Image, dst: Path | IO[bytes]) -> None:
    """Written beside `dst` and renamed when complete, so a failure leaves no half file; or into
    an open binary stream (a worker storing the bytes itself, without a temporary file)."""
    if not isinstance(dst, Path):
        im.save(dst, format="JPEG", **JPEG_OPTIONS)
        return
    partial = dst.with_name(f".{dst.name}.partial")
    try:
        # 4:4:4: thin coloured lines keep their colour (4:2:0 smears it into the ground). No Huffman
        # optimisation: it decodes to the very same pixels, but took three quarters of the encoding
        # time for files about 8 % smaller, and encoding was most of a view's time.
        im.save(partial, format="JPEG", **JPEG_OPTIONS)
        os.replace(partial, dst)
    finally:
        partial.unlink(missing_ok=True)


def ellipse_points(geometry: Mapping[str, Any], n: int = 72) -> list[XY]:
    """The outline of an Ellipse geometry, rotated clockwise on screen by `rotation` degrees (the
    marks' convention: y grows downwards)."""
    cx, cy = (float(v) for v in geometry["center"])
    rx, ry = (float(v) for v in geometry["radii"])
    t = math.radians(float(geometry.get("rotation", 0)))
    out = []
    for k in range(n):
        a = 2 * math.pi * k / n
        x, y = rx * math.cos(a), ry * math.sin(a)
        out.append((cx + x * math.cos(t) - y * math.sin(t), cy + x * math.sin(t) + y * math.cos(t)))
    return out


def outline(geometry: Mapping[str, Any]) -> list[XY]:
    """The points that draw a geometry (a closed ring is not repeated)."""
    kind = geometry.get("type")
    if kind == "Ellipse":
        return ellipse_points(geometry)
    coords: Any = geometry.get("coordinates")
    if kind == "Point":
        return [(float(coords[0]), float(coords[1]))]
    if kind == "LineString":
        return [(float(x), float(y)) for x, y in coords]
    if kind == "Polygon":
        ring = [(float(x), float(y)) for x, y in coords[0]]
        return ring[:-1] if len(ring) > 1 and ring[0] == ring[-1] else ring
    raise ValueError(f"cannot draw a {kind!r} geometry")


def bounds(geometry: Mapping[str, Any]) -> tuple[float, float, float, float]:
    pts = outline(geometry)
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return min(xs), min(ys), max(xs), max(ys)


class _Pen:
    """Line widths, marker sizes and the font, in proportion to the picture."""

    def __init__(self, width: int, height: int):
        side = min(width, height)
        self.line = max(2, round(side / 360))
        self.halo = self.line + max(2, self.line)
        self.dot = max(4, round(side / 140))
        self.font_size = max(12, round(side / 32))
        self.font = _font(self.font_size)


@functools.lru_cache(maxsize=64)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    # Loading the font parses it again each time; every picture of one size uses the same one.
    return ImageFont.load_default(size=size)


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _tag(
    draw: ImageDraw.ImageDraw, pen: _Pen, at: XY, text: str, colour: tuple[int, int, int], size: XY, taken: list[Box]
) -> None:
    """The name in a filled box with its top-left near `at`, kept inside the picture and moved down
    (or up, at the bottom edge) past the tags already placed, so no name hides another."""
    left, top, right, bottom = draw.textbbox((0, 0), text, font=pen.font)
    pad = max(2, pen.line)
    w, h = right - left + 2 * pad, bottom - top + 2 * pad
    x = min(max(0.0, at[0]), size[0] - w)
    y = min(max(0.0, at[1]), size[1] - h)
    step = h + 2 if y + (h + 2) * 6 <= size[1] else -(h + 2)
    for _ in range(12):
        if not any(_overlaps((x, y, x + w, y + h), other) for other in taken):
            break
        y = min(max(0.0, y + step), size[1] - h)
    taken.append((x, y, x + w, y + h))
    draw.rectangle((x, y, x + w, y + h), fill=colour, outline=HALO, width=max(1, pen.line // 2))
    draw.text((x + pad - left, y + pad - top), text, fill=HALO, font=pen.font)


def pace_points(points: Sequence[XY], times: Sequence[float]) -> list[XY]:
    """Where a timed track is at each share of its time span (linear between vertices)."""
    if len(times) != len(points) or len(points) < 2 or times[-1] <= times[0]:
        return []
    out = []
    for share in PACE_FRACTIONS:
        t = times[0] + share * (times[-1] - times[0])
        for i in range(1, len(times)):
            if times[i] >= t:
                span = times[i] - times[i - 1]
                u = 0.0 if span <= 0 else (t - times[i - 1]) / span
                (x0, y0), (x1, y1) = points[i - 1], points[i]
                out.append((x0 + u * (x1 - x0), y0 + u * (y1 - y0)))
                break
    return out


def _arrowhead(tip: XY, tail: XY, length: float) -> list[XY]:
    angle = math.atan2(tip[1] - tail[1], tip[0] - tail[0])
    return [tip] + [
        (
            tip[0] - length * math.cos(angle + s * math.radians(28)),
            tip[1] - length * math.sin(angle + s * math.radians(28)),
        )
        for s in (-1, 1)
    ]


def _ring(draw: ImageDraw.ImageDraw, at: XY, r: float, colour: tuple[int, int, int], width: int) -> None:
    draw.ellipse((at[0] - r, at[1] - r, at[0] + r, at[1] + r), outline=colour, width=width)


def _draw_shape(draw: ImageDraw.ImageDraw, pen: _Pen, shape: Shape, colour: tuple[int, int, int], s: float) -> XY:
    """Draw one shape scaled by `s`; returns where its name tag goes."""
    kind = shape.geometry.get("type")
    pts = [(x * s, y * s) for x, y in outline(shape.geometry)]
    if kind == "Point":
        (x, y), r = pts[0], float(pen.dot)
        draw.ellipse((x - r - 2, y - r - 2, x + r + 2, y + r + 2), fill=HALO)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)
        return x + r + pen.line, y + r
    if kind == "LineString":
        for width, ink in ((pen.halo, HALO), (pen.line, colour)):
            draw.line(pts, fill=ink, width=width, joint="curve")
        tail = next((p for p in reversed(pts[:-1]) if p != pts[-1]), pts[0])
        if tail != pts[-1]:
            head = _arrowhead(pts[-1], tail, 4 * pen.dot)
            draw.polygon(head, fill=colour, outline=HALO, width=max(1, pen.line // 2))
        _ring(draw, pts[0], 1.6 * pen.dot, HALO, pen.halo)
        _ring(draw, pts[0], 1.6 * pen.dot, colour, pen.line)
        for x, y in pace_points(pts, shape.times):
            r = 0.7 * pen.dot
            draw.ellipse((x - r - 1, y - r - 1, x + r + 1, y + r + 1), fill=HALO)
            draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)
        return pts[0][0] + 2 * pen.dot, pts[0][1] + 2 * pen.dot
    closed = [*pts, pts[0]]
    for width, ink in ((pen.halo, HALO), (pen.line, colour)):
        draw.line(closed, fill=ink, width=width, joint="curve")
    x0, y0 = min(p[0] for p in pts), min(p[1] for p in pts)
    return x0, y0 - pen.font_size - 4 * pen.line


def offset_line(points: Sequence[XY], d: float) -> list[XY]:
    """The polyline moved `d` px sideways (to its left, y down), each vertex along the mean normal
    of its two segments, stretched at bends so both segments keep the distance (capped at 2d)."""
    if d == 0 or len(points) < 2:
        return list(points)
    normals = []
    for (x0, y0), (x1, y1) in pairwise(points):
        length = math.hypot(x1 - x0, y1 - y0) or 1.0
        normals.append(((y1 - y0) / length, -(x1 - x0) / length))
    out = []
    for i, (x, y) in enumerate(points):
        a, b = normals[max(0, i - 1)], normals[min(i, len(normals) - 1)]
        nx, ny = a[0] + b[0], a[1] + b[1]
        norm = math.hypot(nx, ny)
        if norm < 1e-9:  # the track turns straight back: either normal will do
            nx, ny, norm = a[0], a[1], 1.0
        stretch = min(2.0, 2.0 / norm)  # 1 / cos(half the turn), as |a + b| = 2 cos(half the turn)
        out.append((x + d * stretch * nx / norm, y + d * stretch * ny / norm))
    return out


def _spread_tracks(shapes: Sequence[Shape], s: float, pen: _Pen) -> list[Shape]:
    """Tracks side by side: wrong options may run along the true path (reversed, time-warped), and
    drawn on top of one another only the last would show. Each track is moved sideways by its own
    few pixels, the set centred on where they are."""
    lines = [i for i, sh in enumerate(shapes) if sh.geometry.get("type") == "LineString"]
    if len(lines) < 2:
        return list(shapes)
    gap = (pen.halo + 2) / s  # in image pixels, so the drawn gap is the same whatever the scale
    out = list(shapes)
    for rank, i in enumerate(lines):
        d = (rank - (len(lines) - 1) / 2) * gap
        pts = outline(shapes[i].geometry)
        # Sideways by the same rule whichever way a track runs, or a reversed copy moves onto it.
        backwards = (pts[-1][0] - pts[0][0], pts[-1][1] - pts[0][1]) < (0.0, 0.0)
        moved = offset_line(pts[::-1], d)[::-1] if backwards else offset_line(pts, d)
        out[i] = Shape({**shapes[i].geometry, "coordinates": [list(p) for p in moved]}, shapes[i].name, shapes[i].times)
    return out


def _draw_all(im: Image.Image, shapes: Sequence[Shape], s: float, colours: Sequence[int]) -> None:
    draw = ImageDraw.Draw(im)
    pen = _Pen(im.width, im.height)
    shapes = _spread_tracks(shapes, s, pen)
    # Shapes first, then every tag, so no outline runs across a name.
    tags = [
        (_draw_shape(draw, pen, sh, PALETTE[c % len(PALETTE)], s), sh, c) for sh, c in zip(shapes, colours, strict=True)
    ]
    taken: list[Box] = []
    for at, sh, c in tags:
        _tag(draw, pen, at, sh.name, PALETTE[c % len(PALETTE)], (im.width, im.height), taken)


def candidates_box(
    geometries: Sequence[Mapping[str, Any]], width: int, height: int, *, within: Box | None = None
) -> IntBox:
    """The cut that shows every candidate: their joint bounding box grown by a margin on each side
    (CANDIDATE_MARGIN of its longer side, at least CANDIDATE_MARGIN_PX), then kept inside `within`
    (the bounding box of the image's data, so a black or transparent border is not shown) and the
    image. The same for any order of the candidates."""
    boxes = [bounds(g) for g in geometries]
    if not boxes:
        raise ValueError("no candidates to cut around")
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    margin = max(CANDIDATE_MARGIN * max(x1 - x0, y1 - y0), CANDIDATE_MARGIN_PX)
    lo_x, lo_y, hi_x, hi_y = within if within is not None else (0.0, 0.0, float(width), float(height))
    # The data's box, inside the image, but never narrower than the candidates themselves.
    lo_x, lo_y = max(0.0, min(lo_x, x0)), max(0.0, min(lo_y, y0))
    hi_x, hi_y = min(float(width), max(hi_x, x1)), min(float(height), max(hi_y, y1))
    left, top = max(lo_x, x0 - margin), max(lo_y, y0 - margin)
    right, bottom = min(hi_x, x1 + margin), min(hi_y, y1 + margin)
    # Inward rounding: a cut never takes a column or row outside the data's box.
    box = (math.ceil(left), math.ceil(top), math.floor(right), math.floor(bottom))
    if box[2] <= box[0] or box[3] <= box[1]:
        return 0, 0, width, height
    return box


def _moved(crop: IntBox | None, shapes: Sequence[Shape], size: tuple[int, int]) -> tuple[list[Shape], IntBox]:
    """The shapes moved with the cut to `crop` (the whole picture of `size` when None), and the cut."""
    if crop is None:
        return list(shapes), (0, 0, size[0], size[1])
    left, top, _, _ = crop
    return [Shape(shifted(sh.geometry, -left, -top), sh.name, sh.times) for sh in shapes], crop


def _source(src: Path | Base, max_pixels: int) -> Base:
    return src if isinstance(src, Base) else Base.open(src, max_pixels)


def _picture(base: Base, crop: IntBox | None, max_side: int) -> tuple[Image.Image, float]:
    """The cut and scaled picture to draw on: a copy, as the Base keeps its own for the next one."""
    im, s = base.prepared(crop, max_side)
    return im.copy(), s


def draw_view(
    src: Path | Base,
    dst: Path | IO[bytes],
    shapes: Sequence[Shape],
    *,
    crop: IntBox | None = None,
    max_side: int = MAX_VIEW_SIDE,
    max_pixels: int = 400_000_000,
) -> Drawn:
    """The image (or the `crop` of it: left, top, right, bottom in its pixels) with every shape drawn
    and named, scaled down when a side is over `max_side`, written as JPEG to `dst` (a path, or an
    open binary stream). `src` is a file, or a Base already decoded (a worker drawing many items of
    one image)."""
    base = _source(src, max_pixels)
    shapes, (left, top, _, _) = _moved(crop, shapes, base.image.size)
    im, s = _picture(base, crop, max_side)
    _draw_all(im, shapes, s, range(len(shapes)))
    _save(im, dst)
    return Drawn(im.width, im.height, s, (left, top))


def crop_box(geometry: Mapping[str, Any], width: int, height: int) -> tuple[int, int, int, int]:
    """The part of the image an option shows: the shape with context around it on every side (a
    share of its longer side, so a thin track still shows its surroundings), inside the image."""
    x0, y0, x1, y1 = bounds(geometry)
    margin = OPTION_CONTEXT * max(x1 - x0, y1 - y0)
    w = min(max(x1 - x0 + 2 * margin, OPTION_MIN_SIDE), width)
    h = min(max(y1 - y0 + 2 * margin, OPTION_MIN_SIDE), height)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    left = min(max(0.0, cx - w / 2), width - w)
    top = min(max(0.0, cy - h / 2), height - h)
    return round(left), round(top), round(left + w), round(top + h)


def draw_option(
    src: Path | Base,
    dst: Path | IO[bytes],
    shape: Shape,
    *,
    colour: int = 0,
    crop: IntBox | None = None,
    max_side: int = OPTION_MAX_SIDE,
    max_pixels: int = 400_000_000,
) -> Drawn:
    """One option as its own picture: the `crop` of the image (for lettered candidates, the same
    candidates_box for all), or without one the image around the shape; the shape drawn and named.
    `src` is a file or a decoded Base, as for draw_view."""
    base = _source(src, max_pixels)
    cut = crop or crop_box(shape.geometry, base.image.width, base.image.height)
    [moved], (left, top, _, _) = _moved(cut, [shape], base.image.size)
    im, s = _picture(base, cut, max_side)
    _draw_all(im, [moved], s, [colour])
    _save(im, dst)
    return Drawn(im.width, im.height, s, (left, top))


def shifted(geometry: Mapping[str, Any], dx: float, dy: float) -> dict[str, Any]:
    """The geometry moved by (dx, dy) pixels: how a shape lands in a cut of the image."""
    kind = geometry.get("type")
    if kind == "Ellipse":
        cx, cy = geometry["center"]
        return {**geometry, "center": [float(cx) + dx, float(cy) + dy]}
    coords = geometry["coordinates"]
    if kind == "Point":
        return {**geometry, "coordinates": [float(coords[0]) + dx, float(coords[1]) + dy]}
    if kind == "LineString":
        return {**geometry, "coordinates": [[float(x) + dx, float(y) + dy] for x, y in coords]}
    return {**geometry, "coordinates": [[[float(x) + dx, float(y) + dy] for x, y in ring] for ring in coords]}
