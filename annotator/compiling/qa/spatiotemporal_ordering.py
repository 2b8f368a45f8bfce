"""Spatiotemporal Ordering (Reasoning, the 6 orders of 3 regions): in which order do three marked
regions first appear in the video? First-seen times are each region's fact 'first_seen_s', else its
start time. Sightings closer than ORDER_MIN_GAP_S are a tie a viewer cannot call: refused."""

from __future__ import annotations

import random
from itertools import combinations, permutations

from annotator.compiling.errors import TemplateError
from annotator.compiling.spatial import REGION_KINDS
from annotator.models import Item

from .base import CompiledItem, Fact, Need, Roles, Template, register
from .options import choice_item
from .roles import first_seen_s
from .wording import seconds

# Two first sightings less than this apart cannot be ordered reliably from the video.
ORDER_MIN_GAP_S = 1.0
FIRST_SEEN = Fact(
    "first_seen_s", "the video time in seconds when it first appears (else its start time is used)", False
)


def order_text(names: tuple[str, ...]) -> str:
    return ", then ".join(f"the {n}" for n in names)


@register
class SpatiotemporalOrdering(Template):
    task = Item.Task.SPATIOTEMPORAL_ORDERING
    name = "spatiotemporal_ordering.v1"
    answer_format = Item.AnswerFormat.MULTIPLE_CHOICE
    needs = (Need("regions", REGION_KINDS, "three regions (polygons) seen in the video", (3, 3),
                  facts=(FIRST_SEEN,)),)  # fmt: skip
    shown_roles = ("regions",)
    derives = f"The regions sorted by first-seen time; sightings less than {ORDER_MIN_GAP_S} s apart are refused."
    phrasings = (
        "In what order do the {a}, the {b} and the {c} first appear in the drone video?",
        "The {a}, the {b} and the {c} are marked on the satellite image. Which sequence gives the order in which the "
        "drone first sees them?",
        "Order these regions by when they first come into view in the video: the {a}, the {b}, the {c}.",
        "As the drone flies, which of these orders matches the first sightings of the {a}, the {b} and the {c}?",
        "Which comes first, second and third in the footage: the {a}, the {b} or the {c}?",
        "Sort the marked {a}, {b} and {c} chronologically by their first appearance in the drone video.",
        "Following the video from the start, in which sequence are the {a}, the {b} and the {c} first seen?",
        "What is the chronological order of first appearance of the three marked regions (the {a}, the {b}, the {c})?",
        "The drone video shows the {a}, the {b} and the {c} at some point. In what order does each first show up?",
        "Which ordering lists the {a}, the {b} and the {c} from the earliest to the latest first sighting in the UAV "
        "video?",
    )

    def build(self, roles: Roles, rng: random.Random) -> CompiledItem:
        regions = roles.all("regions")
        seen = {roles.name(m): first_seen_s(m, roles.name(m)) for m in regions}
        for (x, tx), (y, ty) in combinations(seen.items(), 2):
            if abs(tx - ty) < ORDER_MIN_GAP_S:
                raise TemplateError(
                    "facts.first_seen_s",
                    f"the {x} and the {y} are first seen {abs(tx - ty):.1f} s apart ({seconds(tx)} and {seconds(ty)}); "
                    f"ordering needs at least {ORDER_MIN_GAP_S:.1f} s between first sightings: correct their "
                    "first-seen times or choose other regions",
                )
        names = list(seen)
        # The question lists the regions in a seeded order, never by time (that would give it away).
        listed = rng.sample(names, len(names))
        truth = tuple(sorted(names, key=seen.__getitem__))
        wording, question = self.phrase(rng, a=listed[0], b=listed[1], c=listed[2])
        choices = [order_text(p) for p in permutations(names)]
        provenance = {**wording.provenance, "names": roles.named(), "first_seen_s": seen, "min_gap_s": ORDER_MIN_GAP_S}
        return choice_item(question=question, choices=choices, answer=order_text(truth), rng=rng, provenance=provenance)
