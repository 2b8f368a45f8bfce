"""Rule-based wrong options: plausible, never correct, and far enough from the truth and from each
other by a threshold stated here. Each generator takes the annotator's own decoy marks first (they
know which other places look alike) and fills the rest from the seeded generator. Every option lies
inside the image's valid-data area (annotator.compiling.area), decoys included: one on a black or
transparent border would be wrong at a glance, without the video."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import shapely
from django.core.exceptions import ValidationError
from shapely.affinity import rotate, translate
from shapely.geometry import LineString, Point, Polygon
from shapely.geometry.base import BaseGeometry

from annotator.marking.geometry import region_shape

from .area import ImageArea, Sampler
from .errors import TemplateError
from .spatial import XY, centroid, iou
from .tracks import (
    Track,
    mirrored_track,
    reversed_track,
    rotated_track,
    shifted_track,
    track_distance,
)

# Event Geo-localization: candidate points are at least this share of the image's shorter side from
# the event and from each other (and never closer than the floor in pixels, about two marker
# widths), and this share of the shorter side inside the valid area's border, so the image's edge
# too (a point on the very edge of the data reads as "off the map").
POINT_MIN_SEPARATION = 0.15
POINT_MIN_SEPARATION_PX = 12.0
POINT_EDGE_MARGIN = 0.04
# Scene Association: a wrong region overlaps the true one, and every other option, by less than
# this intersection over union, so no option is half right.
REGION_MAX_IOU = 0.10
# Trajectory Matching: a wrong track's route is at least this discrete Fréchet distance from the
# true one and from every other option's: this share of the true track's extent (its bounding-box
# diagonal), and never under the floor in pixels, so tiny tracks still differ visibly. Routes are
# compared without their clocks: the question asks which route, so a track along the true path at
# another pace (a time warp) would be a second right answer in the images.
TRACK_MIN_FRECHET_SHARE = 0.25
TRACK_MIN_FRECHET_PX = 8.0
# Random placements tried before giving up with a message.
MAX_TRIES = 400


@dataclass(frozen=True)
class Candidate:
    """One option drawn on the image: its geometry (mark-like, pixels), where it comes from
    ("truth", "mark 12", "shifted", ...) and extra numbers that explain it."""

    geometry: dict[str, Any]
    source: str
    info: dict[str, Any]


def other_choices(choices: Sequence[str], truth: str) -> list[str]:
    """The wrong ones among a closed set of answers (sectors, grades, orders, classes)."""
    if truth not in choices:
        raise ValueError(f"{truth!r} is not one of {list(choices)}")
    return [c for c in choices if c != truth]


def point_separation(width: float, height: float) -> float:
    return max(POINT_MIN_SEPARATION * min(width, height), POINT_MIN_SEPARATION_PX)


def _point_geometry(p: XY) -> dict[str, Any]:
    return {"type": "Point", "coordinates": [round(p[0], 1), round(p[1], 1)]}


def key_on_data(area: ImageArea, geometry: BaseGeometry, what: str) -> None:
    """Refuse a key that lies off the image's data: every wrong option is drawn on data, so a key on
    a black or transparent border would be the odd one out, answerable without the video."""
    if not area.is_whole and not area.covers(geometry):
        raise TemplateError(
            "marks",
            f"the {what} lies (partly) where the satellite image has no data, its black or transparent border; "
            "the wrong options are drawn only on data, so this key would stand out: mark it on the image's data",
        )


def point_candidates(
    truth: XY, decoys: Sequence[tuple[XY, str]], *, area: ImageArea, rng: random.Random, count: int = 3
) -> list[Candidate]:
    """`count` wrong places in the image's valid area, at least POINT_EDGE_MARGIN inside its border,
    each point_separation() from the truth and from each other."""
    key_on_data(area, Point(truth), "event's place")
    separation = point_separation(area.width, area.height)
    room = area.inset(POINT_EDGE_MARGIN * min(area.width, area.height))
    shapely.prepare(room)
    taken = [truth]
    out: list[Candidate] = []

    def take(p: XY, source: str) -> None:
        if len(out) < count and all(math.dist(p, q) >= separation for q in taken):
            taken.append(p)
            out.append(Candidate(_point_geometry(p), source, {"distance_px": round(math.dist(p, truth), 1)}))

    for p, source in decoys:
        if room.covers(Point(p)):
            take(p, source)
    draw = Sampler(room)
    for _ in range(MAX_TRIES):
        spot = draw(rng) if len(out) < count else None
        if spot is None:
            break
        take(spot, "random")
    if len(out) < count:
        where, hint = ("", "a larger image") if area.is_whole else (f" {area.where()}", "an image with more data")
        raise TemplateError(
            "marks",
            f"the image has no room for {count} other locations {separation:.0f} px from the event and from each "
            f"other{where}; mark the event on {hint}",
        )
    return out


def _moved_geometry(geometry: dict[str, Any], angle: float, dx: float, dy: float, moved: Polygon) -> dict[str, Any]:
    """The mark's geometry turned about its centre and shifted: an ellipse stays an ellipse."""
    if geometry.get("type") == "Ellipse":
        cx, cy = geometry["center"]
        return {
            "type": "Ellipse",
            "center": [round(cx + dx, 1), round(cy + dy, 1)],
            "radii": list(geometry["radii"]),
            "rotation": round((float(geometry.get("rotation", 0)) + angle) % 360, 1),
        }
    ring = [[round(x, 1), round(y, 1)] for x, y in list(moved.exterior.coords)[:-1]]
    return {"type": "Polygon", "coordinates": [ring]}


def region_candidates(
    truth: dict[str, Any],
    decoys: Sequence[tuple[dict[str, Any], str]],
    *,
    area: ImageArea,
    rng: random.Random,
    count: int = 3,
) -> list[Candidate]:
    """`count` wrong regions covered by the image's valid area, each with IoU under REGION_MAX_IOU
    against the truth and the others: the annotator's decoy regions first, then the true region
    turned and moved to a centre drawn in the valid area."""
    kind = "ellipse" if truth.get("type") == "Ellipse" else "polygon"
    shape = region_shape(kind, truth)
    key_on_data(area, shape, "region")
    taken = [shape]
    out: list[Candidate] = []

    def take(geometry: dict[str, Any], source: str) -> None:
        try:
            candidate = region_shape("ellipse" if geometry.get("type") == "Ellipse" else "polygon", geometry)
        except ValidationError:  # rounding a sliver of a polygon can fold it; that one is skipped
            return
        overlaps = [iou(candidate, other) for other in taken]
        if len(out) < count and area.covers(candidate) and max(overlaps) < REGION_MAX_IOU:
            taken.append(candidate)
            out.append(Candidate(geometry, source, {"iou_with_truth": round(overlaps[0], 3)}))

    for geometry, source in decoys:
        take(geometry, source)
    cx, cy = centroid(shape)
    for _ in range(MAX_TRIES):
        centre = area.sampler(rng) if len(out) < count else None
        if centre is None:
            break
        angle = rng.uniform(0, 360)
        dx, dy = centre[0] - cx, centre[1] - cy
        moved = translate(rotate(shape, angle, origin=(cx, cy)), dx, dy)
        take(_moved_geometry(truth, angle, dx, dy, moved), "moved")
    if len(out) < count:
        where, there = ("", "") if area.is_whole else (f" {area.where()}", " there")
        raise TemplateError(
            "marks",
            f"the image has no room for {count} other regions of this size overlapping it by less than "
            f"{REGION_MAX_IOU:.0%} (IoU){where}; draw a smaller region or add decoy regions{there}",
        )
    return out


def track_threshold(truth: Track) -> float:
    xs, ys = [p[0] for p in truth.points], [p[1] for p in truth.points]
    extent = math.hypot(max(xs) - min(xs), max(ys) - min(ys))
    return max(TRACK_MIN_FRECHET_SHARE * extent, TRACK_MIN_FRECHET_PX)


def _mirrored_reversed(track: Track) -> Track:
    return reversed_track(mirrored_track(track))


# Each is its own inverse and they commute: with the identity they form a group, so a set of tracks
# closed under them has no member that stands out as the one the others were made from.
_SYMMETRIES = (
    (reversed_track, "reversed"),
    (mirrored_track, "mirrored"),
    (_mirrored_reversed, "mirrored and reversed"),
)


def _transforms(truth: Track, others: Sequence[tuple[Track, str]]) -> list[tuple[Track, str]]:
    """The truth's and the other targets' tracks reversed, mirrored, or both, in an order that closes
    the set of options under those moves when it can: without other tracks the truth's three images
    (every option then has the same three partners, the key as much as any), with one other track
    both reversed. A set where only the truth had a reversed or mirrored partner would point at it."""
    pool: list[tuple[Track, str]] = []
    for move, name in _SYMMETRIES:
        pool.append((move(truth), name))
        pool += [(move(track), f"{source} {name}") for track, source in others]
    return pool


def _random_transform(truth: Track, threshold: float, rng: random.Random) -> tuple[Track, str]:
    if rng.random() < 0.5:
        heading = rng.uniform(0, 2 * math.pi)
        step = rng.uniform(1.0, 3.0) * threshold
        dx, dy = step * math.cos(heading), step * math.sin(heading)
        return shifted_track(truth, dx, dy), f"shifted by ({dx:.0f}, {dy:.0f}) px"
    angle = rng.choice((-1, 1)) * rng.uniform(45, 180)
    return rotated_track(truth, angle), f"rotated by {angle:.0f} degrees"


def track_candidates(
    truth: Track,
    decoys: Sequence[tuple[Track, str]],
    *,
    area: ImageArea,
    rng: random.Random,
    count: int = 3,
) -> tuple[list[Candidate], float]:
    """`count` wrong tracks whose vertices and segments lie in the image's valid area, each a route
    at least track_threshold(truth) in discrete Fréchet distance from the truth's and the others':
    other targets' tracks first, then the truth reversed, mirrored, shifted or rotated (never the
    same path on another clock). Returns them and the threshold used."""
    key_on_data(area, LineString(truth.points), "trajectory")
    threshold = track_threshold(truth)
    taken = [truth]
    out: list[Candidate] = []

    def take(track: Track, source: str) -> None:
        if len(out) >= count or not area.covers(LineString(track.points)):
            return
        gaps = [track_distance(track, other) for other in taken]
        if min(gaps) >= threshold:
            taken.append(track)
            geometry = {**track.geometry(), "vertex_times": list(track.times or [])}
            out.append(Candidate(geometry, source, {"frechet_to_truth": round(gaps[0], 1)}))

    for track, source in decoys:
        take(track, source)
    others = [(t, c.source) for t, c in zip(taken[1:], out, strict=True)]
    for track, source in _transforms(truth, others):
        take(track, source)
    for _ in range(MAX_TRIES):
        if len(out) == count:
            break
        take(*_random_transform(truth, threshold, rng))
    if len(out) < count:
        raise TemplateError(
            "marks",
            f"no room for {count} other tracks at least {threshold:.0f} px (discrete Fréchet) from this one "
            f"{area.where()}; add other targets' trajectories as decoys",
        )
    return out, threshold
