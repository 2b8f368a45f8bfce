"""Trajectories (polyline marks, optionally one video time per vertex): where the target is at a
time, how different two tracks are (discrete Fréchet distance), and the transformations that turn
a true track into a plausible wrong one."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from annotator.models import Mark

from .errors import TemplateError

XY = tuple[float, float]

# Tracks are compared at this many points spread evenly along their length, so a track drawn with
# many vertices and one drawn with few compare by shape, not by how they were clicked.
COMPARE_SAMPLES = 32


@dataclass(frozen=True)
class Track:
    points: tuple[XY, ...]
    times: tuple[float, ...] | None = None  # one video time per point, never decreasing

    @property
    def length(self) -> float:
        return sum(math.dist(a, b) for a, b in pairwise(self.points))

    @property
    def span(self) -> tuple[float, float] | None:
        return (self.times[0], self.times[-1]) if self.times else None

    def geometry(self) -> dict[str, object]:
        return {"type": "LineString", "coordinates": [[round(x, 1), round(y, 1)] for x, y in self.points]}


def track_of(mark: Mark, name: str) -> Track:
    """The mark's trajectory; refused when it has fewer than two distinct vertices, since a single
    place has no path, heading or speed."""
    points = tuple((float(p[0]), float(p[1])) for p in mark.geometry.get("coordinates") or [])
    if len(set(points)) < 2:
        raise TemplateError(
            "geometry",
            f"the trajectory of the {name} has {len(set(points))} distinct vertex; draw at least 2 vertices "
            "where the target moves",
        )
    times = tuple(float(t) for t in mark.vertex_times) if mark.vertex_times else None
    if times is not None and len(times) != len(points):
        raise TemplateError("vertex_times", f"the trajectory of the {name} needs one time per vertex")
    return Track(points, times)


def timed_track_of(mark: Mark, name: str) -> Track:
    track = track_of(mark, name)
    if track.times is None or track.times[0] == track.times[-1]:
        raise TemplateError(
            "vertex_times",
            f"give the trajectory of the {name} a video time at each vertex (scrub to where the target is "
            "and set the vertex time), so its position at a given time can be worked out",
        )
    return track


def position_at(track: Track, t: float) -> XY | None:
    """Linear interpolation along the vertices by their times; None outside the track's times.
    Where two vertices share a time, the later one holds from then on."""
    times = track.times
    if not times or t < times[0] or t > times[-1]:
        return None
    i = bisect_right(times, t) - 1
    if i >= len(times) - 1:
        return track.points[-1]
    t0, t1 = times[i], times[i + 1]
    u = (t - t0) / (t1 - t0)  # t1 > t0: bisect_right stepped past every vertex at time t0
    (x0, y0), (x1, y1) = track.points[i], track.points[i + 1]
    return x0 + u * (x1 - x0), y0 + u * (y1 - y0)


def resample(track: Track, n: int = COMPARE_SAMPLES) -> Track:
    """`n` points evenly spaced along the track's length (times interpolated alike)."""
    cumulative = [0.0]
    for a, b in pairwise(track.points):
        cumulative.append(cumulative[-1] + math.dist(a, b))
    total = cumulative[-1]
    points, times = [], []
    for k in range(n):
        s = total * k / (n - 1)
        i = min(max(bisect_right(cumulative, s) - 1, 0), len(track.points) - 2)
        seg = cumulative[i + 1] - cumulative[i]
        u = (s - cumulative[i]) / seg if seg > 0 else 0.0
        (x0, y0), (x1, y1) = track.points[i], track.points[i + 1]
        points.append((x0 + u * (x1 - x0), y0 + u * (y1 - y0)))
        if track.times:
            times.append(track.times[i] + u * (track.times[i + 1] - track.times[i]))
    return Track(tuple(points), tuple(times) if track.times else None)


def discrete_frechet(p: Sequence[Sequence[float]], q: Sequence[Sequence[float]]) -> float:
    """The discrete Fréchet distance (Eiter & Mannila): the shortest leash that lets two walkers
    step through p and q in order, each only forwards. Dynamic programming, one row at a time."""
    if not p or not q:
        raise ValueError("both sequences need at least one point")
    prev: list[float] = []
    for i, a in enumerate(p):
        row: list[float] = []
        for j, b in enumerate(q):
            d = math.dist(a, b)
            if i == 0:
                row.append(d if j == 0 else max(row[j - 1], d))
            elif j == 0:
                row.append(max(prev[0], d))
            else:
                row.append(max(min(prev[j], prev[j - 1], row[j - 1]), d))
        prev = row
    return prev[-1]


def track_distance(a: Track, b: Track) -> float:
    """Discrete Fréchet distance between two tracks' routes, in pixels: where they go, in which
    direction, whatever their clocks. Two tracks on one path at another pace are the same route, so
    a route question can never use one as a wrong option."""
    return discrete_frechet(resample(a).points, resample(b).points)


def mean_speed(track: Track) -> float | None:
    """Pixels per second over the track's time span; None when untimed or instantaneous."""
    span = track.span
    if span is None or span[1] <= span[0]:
        return None
    return track.length / (span[1] - span[0])


# ---- transformations of a true track into wrong ones ---------------------------------------


def reversed_track(track: Track) -> Track:
    """The same path travelled the other way, on the same clock."""
    return Track(tuple(reversed(track.points)), track.times)


def mirrored_track(track: Track) -> Track:
    """Reflected across the line from its start to its end: left turns become right turns. A
    closed loop is reflected across the vertical line through its centre instead."""
    (x0, y0), (x1, y1) = track.points[0], track.points[-1]
    dx, dy = x1 - x0, y1 - y0
    norm = math.hypot(dx, dy)
    if norm == 0:
        cx = sum(p[0] for p in track.points) / len(track.points)
        return Track(tuple((2 * cx - x, y) for x, y in track.points), track.times)
    ux, uy = dx / norm, dy / norm
    out = []
    for x, y in track.points:
        along = (x - x0) * ux + (y - y0) * uy
        fx, fy = x0 + along * ux, y0 + along * uy  # foot of the perpendicular on the chord
        out.append((2 * fx - x, 2 * fy - y))
    return Track(tuple(out), track.times)


def shifted_track(track: Track, dx: float, dy: float) -> Track:
    return Track(tuple((x + dx, y + dy) for x, y in track.points), track.times)


def rotated_track(track: Track, angle_deg: float) -> Track:
    """Turned about its own centre (clockwise on screen for a positive angle, as y points down)."""
    cx = sum(p[0] for p in track.points) / len(track.points)
    cy = sum(p[1] for p in track.points) / len(track.points)
    c, s = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    return Track(
        tuple((cx + (x - cx) * c - (y - cy) * s, cy + (x - cx) * s + (y - cy) * c) for x, y in track.points),
        track.times,
    )
