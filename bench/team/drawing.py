"""Annotators drawing marks through the marking services: regions, key locations, target instances
and timed trajectories of varied form on the image's valid-data area, times within the video, labels
from the label set, and the facts each task reads, yes/no facts set both ways."""

from __future__ import annotations

import math
import random
from collections import defaultdict
from typing import Any

from annotator.compiling.area import Sampler, image_area
from annotator.marking.services import mark_create, mark_update

LABELS = {"region": ("parking lot", "building", "roundabout", "lane", "crosswalk", "tree", "field"),
          "spot": ("car", "pedestrian", "van", "bus", "truck"), "track": ("car", "van", "bus", "truck")}  # fmt: skip
ACTIONS = ("turns left at the junction", "turns right at the junction", "stops")
EVENTS = ("the white car stops at the give-way line", "a pedestrian crosses the road", "the van turns off",
          "a truck waits at the junction", "the bus pulls in", "two cars pass each other")  # fmt: skip


class Drawer:
    """One annotator drawing on one scene's satellite image through the marking services: shapes of
    varied size and form placed on the image's valid-data area, times within the video."""

    def __init__(self, *, scene: Any, user: Any, rng: random.Random) -> None:
        self.scene, self.user, self.rng = scene, user, rng
        self.image = scene.satellite_images.get()
        self.area = image_area(self.image)
        self.duration = float(scene.video.duration_s)
        self.short = min(self.image.width, self.image.height)
        self.marks: list[Any] = []
        self._samplers: dict[int, Any] = {}

    def _inside(self, margin: float) -> tuple[float, float]:
        """A point of the valid-data area at least `margin` px inside it where it is that wide."""
        key = math.ceil(margin / 8)
        if key not in self._samplers:
            inset = self.area.inset(key * 8)
            self._samplers[key] = Sampler(inset if inset.area > 0.02 * self.area.valid.area else self.area.valid)
        point = self._samplers[key](self.rng)
        return (self.image.width / 2, self.image.height / 2) if point is None else point

    def _time(self, lo: float = 0.0, hi: float | None = None) -> float:
        return round(self.rng.uniform(lo, self.duration if hi is None else hi), 2)

    def _save(self, kind: str, geometry: dict[str, Any], label: str, t0: float, **kw: Any) -> Any:
        mark = mark_create(scene=self.scene, author=self.user, satellite_image=self.image, kind=kind,
                           geometry=geometry, label=label, time_start=t0, **kw)  # fmt: skip
        self.marks.append(mark)
        return mark

    def region(self, *, facts: dict[str, Any], interval: bool = False, t0: float | None = None) -> Any:
        """A polygon of 4-7 vertices, 3-9 % of the image's short side across, on the data."""
        radius = self.rng.uniform(0.03, 0.09) * self.short / 2
        cx, cy = self._inside(radius)
        n = self.rng.randint(4, 7)
        turn = self.rng.uniform(0, 2 * math.pi)
        ring = []
        for i in range(n):
            a = turn + 2 * math.pi * i / n + self.rng.uniform(-0.25, 0.25)
            r = radius * self.rng.uniform(0.75, 1.0)
            x = min(max(cx + r * math.cos(a), 0.0), float(self.image.width))
            y = min(max(cy + r * math.sin(a), 0.0), float(self.image.height))
            ring.append([round(x, 1), round(y, 1)])
        start = self._time(0, self.duration * 0.6) if t0 is None else t0
        end = self._time(start + 0.5, self.duration) if interval and start + 0.5 < self.duration else None
        label = self.rng.choice(LABELS["region"])
        return self._save("polygon", {"type": "Polygon", "coordinates": [ring]}, label, start, time_end=end,
                          facts=facts)  # fmt: skip

    def spot(self, *, facts: dict[str, Any], ellipse: bool = False, label: str | None = None) -> Any:
        """A key location (point) or a target instance (ellipse), at an instant."""
        label = label or self.rng.choice(LABELS["spot"])
        rx, ry = (round(self.rng.uniform(0.008, 0.025) * self.short, 1) for _ in range(2))
        x, y = self._inside(max(rx, ry) + 1)
        t0 = self._time()
        if not ellipse:
            return self._save("point", {"type": "Point", "coordinates": [round(x, 1), round(y, 1)]}, label, t0,
                              facts=facts)  # fmt: skip
        geometry = {"type": "Ellipse", "center": [round(x, 1), round(y, 1)], "radii": [rx, ry],
                    "rotation": round(self.rng.uniform(0, 180), 1)}  # fmt: skip
        return self._save("ellipse", geometry, label, t0, facts=facts)

    def track(self, *, facts: dict[str, Any]) -> Any:
        """A timed trajectory of 3-6 vertices on the data, turning gently (vertices drawn where the
        data is, a step apart, the heading changing by at most 60 degrees), a time at each."""
        n = self.rng.randint(3, 6)
        step = self.rng.uniform(0.06, 0.14) * self.short
        points = [self._inside(0)]
        heading = None
        for _ in range(n - 1):
            x, y = points[-1]
            for _ in range(200):
                nx, ny = self._inside(0)
                dist, angle = math.hypot(nx - x, ny - y), math.atan2(ny - y, nx - x)
                turn = 0.0 if heading is None else abs((angle - heading + math.pi) % (2 * math.pi) - math.pi)
                if 0.6 * step <= dist <= 1.6 * step and turn <= math.pi / 3:
                    break
            points.append((nx, ny))
            heading = angle
        t0 = self._time(0, self.duration * 0.3)
        t1 = self._time(t0 + 0.5 * (self.duration - t0), self.duration)
        times = [round(t0 + (t1 - t0) * i / (n - 1), 2) for i in range(n)]
        label = self.rng.choice(LABELS["track"])
        line = {"type": "LineString", "coordinates": [[round(x, 1), round(y, 1)] for x, y in points]}
        return self._save("polyline", line, label, times[0], time_end=times[-1], vertex_times=times, facts=facts)


def _region_facts(d: Drawer, *, t0: float, visible: bool | None = None) -> dict[str, Any]:
    """What an annotator states about a region: seen in the video (either way), first seen when,
    what to count there."""
    visible = d.rng.random() < 0.5 if visible is None else visible
    facts: dict[str, Any] = {"visible": visible, "count_class": d.rng.choice(LABELS["spot"])}
    if visible:
        facts["first_seen_s"] = t0
    return facts


def _target_facts(d: Drawer, *, track: bool) -> dict[str, Any]:
    """A target's next move (straight on for some tracks: geometry decides), whether that reaches
    the region (either way), how it meets the region (for spots; tracks' geometry decides)."""
    facts: dict[str, Any] = {}
    if track and d.rng.random() < 0.4:
        facts["future_action"] = "straight"
    else:
        facts["future_action"] = d.rng.choice(ACTIONS)
        facts["reaches"] = d.rng.random() < 0.5
    if not track:
        facts["interaction"] = d.rng.choice(("enters", "passes_by", "stays_away"))
    return facts


def draw_kit(d: Drawer, *, regions: int, spots: int, tracks: int) -> dict[str, list[Any]]:
    """A working session's marks: regions (first sightings spread through the video, some with an
    interval, occlusion stated between some pairs), key locations with events, target instances,
    trajectories with the times the questions ask about."""
    times = sorted(round(d.duration * (i + d.rng.uniform(0.0, 0.4)) / regions, 2) for i in range(regions))
    d.rng.shuffle(times)
    made: dict[str, list[Any]] = defaultdict(list)
    for t0 in times:
        made["regions"].append(d.region(facts=_region_facts(d, t0=t0), interval=d.rng.random() < 0.6, t0=t0))
    relations = ("hides", "hidden_by", "mutual", "none")
    for a, b in zip(made["regions"], made["regions"][1:], strict=False):  # each with the next one
        if d.rng.random() < 0.7:
            update(a, {"facts": {**a.facts, "occlusion": [{"other": b.id, "relation": d.rng.choice(relations)}]}})
    for i in range(spots):
        facts = _target_facts(d, track=False)
        if i % 2 == 0:
            facts["event"] = d.rng.choice(EVENTS)
        made["spots"].append(d.spot(facts=facts, ellipse=i % 3 == 2))
    for _ in range(tracks):
        facts = _target_facts(d, track=True)
        made["tracks"].append(d.track(facts=facts))
        t = made["tracks"][-1].vertex_times
        a, b = sorted(round(d.rng.uniform(t[0], t[-1]), 2) for _ in range(2))
        if b - a >= 0.3:
            mark = made["tracks"][-1]
            changes = {"facts": {**mark.facts, "t1_s": a, "t2_s": b, "at_s": round(d.rng.uniform(t[0], t[-1]), 2)}}
            made["tracks"][-1] = update(mark, changes)
    return made


def update(mark: Any, changes: dict[str, Any]) -> Any:
    """The annotator edits a mark at its current version (the object is updated in place)."""
    return mark_update(mark=mark, version=mark.version, changes=changes)
