"""Relative Distance (Relation, 5 graded options): how does a target's distance to a region change
between two video times? Positions come from the target's trajectory (interpolated between vertex
times); the distance is to the region's nearest point (0 inside), in metres on the ellipsoid with
a georeference, else pixels; the grade follows the ratio d(t2) / d(t1) in the bands below."""

from __future__ import annotations

import random

from annotator.compiling.errors import TemplateError
from annotator.compiling.spatial import REGION_KINDS, distance_to_region, frame_of, region_of, rounded
from annotator.compiling.tracks import Track, position_at, timed_track_of
from annotator.models import Item, Mark

from .base import CompiledItem, Fact, Need, Roles, Template, register
from .options import choice_item
from .roles import optional_number
from .wording import seconds

# d(t2) / d(t1) within a factor SAME_RATIO either way is "about the same"; beyond MUCH_RATIO either
# way is "much". A ratio exactly on a band edge takes the milder grade (2.0 is "farther").
SAME_RATIO = 1.25
MUCH_RATIO = 2.0
GRADES = (
    "much closer (less than half the distance)",
    "closer",
    f"about the same (within {SAME_RATIO - 1:.0%})",
    "farther",
    "much farther (more than twice the distance)",
)
T1 = Fact("t1_s", "the earlier time to compare, in seconds (default: the first vertex time)", False)
T2 = Fact("t2_s", "the later time to compare, in seconds (default: the last vertex time)", False)


def grade(d1: float, d2: float) -> str:
    """The grade of a change from distance d1 to d2 (same unit). From inside the region (0) to
    outside is "much farther", and the reverse "much closer"; 0 to 0 is "about the same"."""
    if d1 == 0 or d2 == 0:
        return GRADES[2] if d1 == d2 else (GRADES[4] if d1 == 0 else GRADES[0])
    ratio = d2 / d1
    if ratio < 1 / MUCH_RATIO:
        return GRADES[0]
    if ratio < 1 / SAME_RATIO:
        return GRADES[1]
    if ratio <= SAME_RATIO:
        return GRADES[2]
    return GRADES[3] if ratio <= MUCH_RATIO else GRADES[4]


@register
class RelativeDistance(Template):
    task = Item.Task.RELATIVE_DISTANCE
    name = "relative_distance.v1"
    answer_format = Item.AnswerFormat.MULTIPLE_CHOICE
    needs = (
        Need(
            "target", (Mark.Kind.POLYLINE,), "the target's trajectory with a video time at each vertex", facts=(T1, T2)
        ),
        Need("region", REGION_KINDS, "a region (polygon)"),
    )
    shown_roles = ("region",)
    derives = (
        f"Distances from the target's interpolated positions at t1 and t2 to the region; ratio bands "
        f"{SAME_RATIO} and {MUCH_RATIO} give the grade."
    )
    phrasings = (
        "Compared with {t1}, is the {target} closer to or farther from the {region} at {t2}?",
        "How does the distance between the {target} and the marked {region} change from {t1} to {t2}?",
        "Between {t1} and {t2} of the drone video, does the {target} move toward the {region} or away from it, and "
        "by how much?",
        "At {t2}, how far is the {target} from the {region} compared with {t1}?",
        "Judge the change in the distance from the {target} to the {region} outlined on the satellite image, from "
        "{t1} to {t2}.",
        "From {t1} to {t2}, how does the gap between the {target} and the {region} develop?",
        "Relative to where it was at {t1}, is the {target} nearer to the {region}, about as far, or farther at {t2}?",
        "Watching the {target} from {t1} until {t2}: does its distance to the marked {region} shrink, stay about the "
        "same, or grow?",
        "Is the {target} nearer to the {region} at {t2} than at {t1}? Pick the grade that describes the change.",
        "Track the {target} between {t1} and {t2}. How has its distance from the {region} on the satellite image "
        "changed?",
    )

    def build(self, roles: Roles, rng: random.Random) -> CompiledItem:
        target, region = roles.one("target"), roles.one("region")
        name = roles.name(target)
        track = timed_track_of(target, name)
        t1, t2 = self._times(target, track, name)
        p1, p2 = position_at(track, t1), position_at(track, t2)
        assert p1 is not None and p2 is not None  # _times keeps both within the track's times
        frame, shape = frame_of(region), region_of(region)
        d1, d2 = distance_to_region(frame, p1, shape), distance_to_region(frame, p2, shape)
        key = grade(d1, d2)
        fields = {"target": name, "region": roles.name(region), "t1": seconds(t1), "t2": seconds(t2)}
        wording, question = self.phrase(rng, **fields)
        provenance = {
            **wording.provenance,
            "names": roles.named(),
            "times_s": [t1, t2],
            "positions_px": rounded([list(p1), list(p2)], 1),
            "distances": rounded([d1, d2]),
            "unit": frame.unit,
            "ratio": None if d1 == 0 else round(d2 / d1, 4),
            "bands": {"same_ratio": SAME_RATIO, "much_ratio": MUCH_RATIO},
        }
        return choice_item(question=question, choices=GRADES, answer=key, rng=rng, provenance=provenance)

    def _times(self, target: Mark, track: Track, name: str) -> tuple[float, float]:
        assert track.times is not None
        first, last = track.times[0], track.times[-1]
        t1 = optional_number(target, T1.key, name, T1.what)
        t2 = optional_number(target, T2.key, name, T2.what)
        t1, t2 = first if t1 is None else t1, last if t2 is None else t2
        for key, t in ((T1.key, t1), (T2.key, t2)):
            if not first <= t <= last:
                raise TemplateError(
                    f"facts.{key}",
                    f"{seconds(t)} is outside the trajectory of the {name} ({seconds(first)} to {seconds(last)}); "
                    f"set '{key}' within it",
                )
        if t2 <= t1:
            raise TemplateError("facts.t2_s", f"t2_s ({seconds(t2)}) must come after t1_s ({seconds(t1)})")
        return t1, t2
