"""Relative Direction (Relation, 8 compass sectors): in which direction from a region's centroid is
the target at time t? The bearing is the geodesic azimuth on the WGS84 ellipsoid from true north
when the satellite image is georeferenced; without a georeference image up stands for north and
the question says so. Sector borders belong to the sector clockwise of them (spatial.sector_of)."""

from __future__ import annotations

import random

from shapely.geometry import Point

from annotator.compiling.errors import TemplateError
from annotator.compiling.spatial import (
    REGION_KINDS,
    SECTORS,
    XY,
    bearing_deg,
    border_margin_deg,
    centroid,
    frame_of,
    region_of,
    rounded,
    sector_of,
    spot_of,
)
from annotator.compiling.tracks import position_at, timed_track_of
from annotator.models import Item, Mark

from .base import CompiledItem, Fact, Need, Roles, Template, register
from .options import choice_item
from .roles import optional_number
from .wording import seconds

TARGET_KINDS = (Mark.Kind.POLYLINE, Mark.Kind.POINT, Mark.Kind.ELLIPSE)
AT = Fact("at_s", "the video time to ask about, in seconds (trajectories only; default: the mark's start time)", False)


def target_position(target: Mark, name: str) -> tuple[XY, float]:
    """Where the target is and when: a trajectory at its fact 'at_s' (default its start time),
    interpolated between vertex times; a point or ellipse where it sits, at its start time."""
    if target.kind != Mark.Kind.POLYLINE:
        return spot_of(target), float(target.time_start)
    track = timed_track_of(target, name)
    t = optional_number(target, AT.key, name, AT.what)
    t = float(target.time_start) if t is None else t
    where = position_at(track, t)
    if where is None:
        assert track.span is not None
        raise TemplateError(
            "facts.at_s",
            f"{seconds(t)} is outside the trajectory of the {name} ({seconds(track.span[0])} to "
            f"{seconds(track.span[1])}); set 'at_s' within it",
        )
    return where, t


@register
class RelativeDirection(Template):
    task = Item.Task.RELATIVE_DIRECTION
    name = "relative_direction.v1"
    answer_format = Item.AnswerFormat.MULTIPLE_CHOICE
    needs = (
        Need("target", TARGET_KINDS, "the target: a trajectory with vertex times, or a point or ellipse", facts=(AT,)),
        Need("region", REGION_KINDS, "a region (polygon)"),
    )
    shown_roles = ("region",)
    derives = "The bearing from the region's centroid to the target at t, as one of 8 compass sectors of 45 degrees."
    phrasings = (
        "At {time}, in which direction from the {region} is the {target}, {convention}?",
        "Where is the {target} relative to the marked {region} at {time}? Answer with a compass direction, "
        "{convention}.",
        "Seen from the centre of the {region}, which way lies the {target} at {time} ({convention})?",
        "{convention}, what compass direction points from the {region} to the {target} at {time}?",
        "At the {time} mark of the drone video, on which side of the {region} is the {target}? ({convention})",
        "Which of the eight compass directions best describes the position of the {target} with respect to the "
        "{region} at {time}, {convention}?",
        "The {region} is outlined on the satellite image. At {time}, is the {target} north, south, east, west or in "
        "between relative to it ({convention})?",
        "Relative to the {region}, in what direction does the {target} lie when the video is at {time}? Use compass "
        "directions {convention}.",
        "From the middle of the {region}, which compass sector contains the {target} at {time}, {convention}?",
        "Locate the {target} at {time} in the drone video: which direction from the marked {region} is it, "
        "{convention}?",
    )

    def build(self, roles: Roles, rng: random.Random) -> CompiledItem:
        target, region = roles.one("target"), roles.one("region")
        target_name, region_name = roles.name(target), roles.name(region)
        where, t = target_position(target, target_name)
        shape = region_of(region)
        if shape.covers(Point(where)):
            raise TemplateError(
                "marks",
                f"at {seconds(t)} the {target_name} is inside the {region_name}, so it has no direction from it; "
                "ask about a time when it is outside",
            )
        frame = frame_of(region)
        origin = centroid(shape)
        bearing = bearing_deg(frame, origin, where)
        fields = {"target": target_name, "region": region_name, "time": seconds(t),
                  "convention": f"with north meaning {frame.north}"}  # fmt: skip
        wording, question = self.phrase(rng, **fields)
        provenance = {
            **wording.provenance,
            "names": roles.named(),
            "time_s": t,
            "target_px": rounded(list(where), 1),
            "centroid_px": rounded(list(origin), 1),
            "bearing_deg": round(bearing, 2),
            "border_margin_deg": round(border_margin_deg(bearing), 2),
            "north": frame.north,
        }
        return choice_item(
            question=question, choices=SECTORS, answer=sector_of(bearing), rng=rng, provenance=provenance
        )
