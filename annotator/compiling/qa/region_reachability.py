"""Region Reachability (Reasoning, yes/no): would the target reach a region if it did a stated
thing next? The action is the target's fact 'future_action'. For "straight" on a trajectory
geometry decides: a ray from the track's last vertex along its last heading either meets the
region inside the image or not. Any other action needs the annotator's fact 'reaches'; when both
exist they must agree."""

from __future__ import annotations

import math
import random

from shapely.geometry import LineString, Point

from annotator.compiling.errors import TemplateError
from annotator.compiling.spatial import REGION_KINDS, XY, region_of
from annotator.compiling.tracks import Track, track_of
from annotator.models import Item, Mark

from .base import CompiledItem, Fact, Need, Roles, YesNoTemplate, register
from .roles import fact_bool, fact_text

TARGET_KINDS = (Mark.Kind.POLYLINE, Mark.Kind.POINT, Mark.Kind.ELLIPSE)
# The action geometry can follow, as annotators may write it, and how questions phrase it.
STRAIGHT = ("straight", "keeps going straight", "goes straight", "continues straight", "goes straight on")
STRAIGHT_TEXT = "keeps going straight"
ACTION = Fact("future_action", "what the target does next: 'straight', or a clause like 'turns left at the junction'")
REACHES = Fact(
    "reaches", "yes or no: does it reach the region doing that? (not needed for 'straight' on a trajectory)", False
)


def straight_ray(track: Track, width: float, height: float) -> tuple[LineString, XY]:
    """From the last vertex along the last heading, long enough to leave the image; and its start."""
    end = track.points[-1]
    before = next(p for p in reversed(track.points) if p != end)  # track_of guarantees 2 distinct points
    dx, dy = end[0] - before[0], end[1] - before[1]
    scale = 2 * math.hypot(width, height) / math.hypot(dx, dy)
    return LineString([end, (end[0] + dx * scale, end[1] + dy * scale)]), end


@register
class RegionReachability(YesNoTemplate):
    task = Item.Task.REGION_REACHABILITY
    name = "region_reachability.v1"
    needs = (
        Need("target", TARGET_KINDS, "the target: its trajectory, or a point or ellipse", facts=(ACTION, REACHES)),
        Need("region", REGION_KINDS, "a region (polygon)"),
    )
    shown_roles = ("region",)
    derives = "For 'straight' on a trajectory, whether the ray along its last heading meets the region; else 'reaches'."
    phrasings = (
        "If the {target} {action}, will it reach the {region} marked on the satellite image?",
        "Suppose the {target} {action}. Can it get to the marked {region}?",
        "Assuming the {target} {action} from where the video leaves it, does it end up at the {region}?",
        "The {target} {action} next. Would that bring it to the outlined {region}?",
        "Can the marked {region} be reached by the {target} if it {action}?",
        "Picture the {target} continuing: it {action}. Does it arrive at the {region}?",
        "Given that the {target} {action}, is the {region} on the satellite image within its reach?",
        "Will the {region} be reached if the {target} seen in the video {action}?",
        "After the video, the {target} {action}. Does this lead it into the {region}?",
        "Is the {region} reachable for the {target} when it {action}?",
    )
    negative_phrasings = (
        "If the {target} {action}, will it miss the {region} marked on the satellite image?",
        "Suppose the {target} {action}. Does it fail to get to the marked {region}?",
        "Assuming the {target} {action} from where the video leaves it, does it end up somewhere other than the "
        "{region}?",
        "The {target} {action} next. Would that keep it from reaching the outlined {region}?",
        "Is the marked {region} out of reach for the {target} if it {action}?",
        "Picture the {target} continuing: it {action}. Does it never arrive at the {region}?",
        "Given that the {target} {action}, is the {region} on the satellite image beyond its reach?",
        "Will the {region} stay unreached if the {target} seen in the video {action}?",
        "After the video, the {target} {action}. Does this lead it past the {region} without entering it?",
        "When the {target} {action}, does the {region} stay off its path?",
    )

    def build(self, roles: Roles, rng: random.Random) -> CompiledItem:
        target, region = roles.one("target"), roles.one("region")
        target_name, region_name = roles.name(target), roles.name(region)
        action = fact_text(target, ACTION.key, target_name, ACTION.what).rstrip(".")
        straight = action.lower() in STRAIGHT
        derived: dict[str, object] = {"future_action": action}
        if straight and target.kind == Mark.Kind.POLYLINE:
            reaches = self._straight(target, region, roles)
            derived["from"] = "geometry: ray along the last heading"
            stated = target.facts.get(REACHES.key)
            if stated is not None and stated != reaches:
                raise TemplateError(
                    "facts.reaches",
                    f"going straight on, the {target_name} {'meets' if reaches else 'misses'} the {region_name}, "
                    f"but its fact 'reaches' says {'yes' if stated else 'no'}; correct the trajectory or the fact",
                )
        else:
            reaches = fact_bool(target, REACHES.key, target_name, "yes or no: does it reach the region doing that?")
            derived["from"] = "fact reaches"
        text = STRAIGHT_TEXT if straight else action[:1].lower() + action[1:]
        fields = {"target": target_name, "region": region_name, "action": text}
        return self.yes_no(rng, reaches, fields, {"names": roles.named(), "reaches": reaches, **derived})

    def _straight(self, target: Mark, region: Mark, roles: Roles) -> bool:
        track = track_of(target, roles.name(target))
        image = target.satellite_image
        ray, start = straight_ray(track, image.width, image.height)
        shape = region_of(region)
        if shape.covers(Point(start)):
            raise TemplateError(
                "marks",
                f"the trajectory of the {roles.name(target)} already ends inside the {roles.name(region)}; "
                "reachability asks about a region it has not reached yet",
            )
        return bool(ray.intersects(shape))
