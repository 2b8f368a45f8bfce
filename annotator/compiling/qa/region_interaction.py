"""Region Interaction (Reasoning, 3 classes): does the target enter the region, pass close by it,
or stay away? For a trajectory geometry decides: touching or crossing the region's outline is
"enters", a closest approach within PASS_BY_SHARE of the region's size is "passes by", anything
farther is "stays away". A point or ellipse target carries the class in its fact 'interaction';
on a trajectory that fact, when set, must agree with the geometry."""

from __future__ import annotations

import random

from shapely.geometry import LineString

from annotator.compiling.errors import TemplateError
from annotator.compiling.spatial import REGION_KINDS, equivalent_radius, region_of
from annotator.compiling.tracks import track_of
from annotator.marking.facts import FACTS
from annotator.models import Item, Mark

from .base import CompiledItem, Fact, Need, Roles, Template, register
from .options import choice_item
from .roles import fact_choice

CLASSES = FACTS["interaction"].values
# A closest approach up to this share of the region's equivalent radius (the radius of a disc of
# the same area) is passing by; the share keeps the rule the same for a crosswalk and a park.
PASS_BY_SHARE = 0.5
TARGET_KINDS = (Mark.Kind.POLYLINE, Mark.Kind.POINT, Mark.Kind.ELLIPSE)
INTERACTION = Fact(
    "interaction", "'enters', 'passes_by' or 'stays_away' (needed when the target is not a trajectory)", False
)


def option_texts(region: str) -> dict[str, str]:
    return {
        "enters": f"it goes into the {region}",
        "passes_by": f"it passes close by the {region} without entering",
        "stays_away": f"it stays away from the {region}",
    }


def classify(path: LineString, region: Mark) -> tuple[str, float, float]:
    """(class, closest approach in px, pass-by limit in px) of a path against a region."""
    shape = region_of(region)
    limit = PASS_BY_SHARE * equivalent_radius(shape)
    gap = float(path.distance(shape))
    if path.intersects(shape):
        return "enters", 0.0, limit
    return ("passes_by" if gap <= limit else "stays_away"), gap, limit


@register
class RegionInteraction(Template):
    task = Item.Task.REGION_INTERACTION
    name = "region_interaction.v1"
    answer_format = Item.AnswerFormat.MULTIPLE_CHOICE
    needs = (
        Need("target", TARGET_KINDS, "the target: its trajectory, or a point or ellipse", facts=(INTERACTION,)),
        Need("region", REGION_KINDS, "a region (polygon)"),
    )
    shown_roles = ("region",)
    derives = "A trajectory's contact with and closest approach to the region; otherwise the fact 'interaction'."
    phrasings = (
        "How does the {target} interact with the {region} marked on the satellite image during the video?",
        "Over the course of the drone video, what does the {target} do with respect to the marked {region}?",
        "Does the {target} enter the {region}, pass close by it, or keep away from it?",
        "Which best describes the movement of the {target} relative to the outlined {region}?",
        "Watching the {target} in the footage, how does it engage with the {region} on the satellite image?",
        "Consider the marked {region}. What is the relationship of the {target} to it in the video?",
        "In the drone video, is the {target} seen going into the {region}, skirting past it, or staying clear of it?",
        "What kind of interaction between the {target} and the {region} does the UAV video show?",
        "Relative to the {region} outlined on the map, how does the {target} behave in the video?",
        "From the drone footage, classify how the {target} relates to the marked {region}.",
    )

    def build(self, roles: Roles, rng: random.Random) -> CompiledItem:
        target, region = roles.one("target"), roles.one("region")
        target_name, region_name = roles.name(target), roles.name(region)
        derived: dict[str, object] = {"pass_by_share": PASS_BY_SHARE}
        if target.kind == Mark.Kind.POLYLINE:
            path = LineString(track_of(target, target_name).points)
            key, gap, limit = classify(path, region)
            derived |= {"from": "geometry", "closest_px": round(gap, 1), "pass_by_limit_px": round(limit, 1)}
            stated = target.facts.get(INTERACTION.key)
            if stated is not None and stated != key:
                raise TemplateError(
                    "facts.interaction",
                    f"the trajectory of the {target_name} {key.replace('_', ' ')} the {region_name} "
                    f"(closest approach {gap:.0f} px, pass-by limit {limit:.0f} px) but its fact 'interaction' says "
                    f"{stated!r}; correct the trajectory or the fact",
                )
        else:
            key = fact_choice(target, INTERACTION.key, target_name, CLASSES)
            derived["from"] = "fact interaction"
        texts = option_texts(region_name)
        wording, question = self.phrase(rng, target=target_name, region=region_name)
        provenance = {**wording.provenance, "names": roles.named(), "interaction": key, **derived}
        return choice_item(
            question=question, choices=list(texts.values()), answer=texts[key], rng=rng, provenance=provenance
        )
