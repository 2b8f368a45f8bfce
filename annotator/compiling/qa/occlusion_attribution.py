"""Occlusion Attribution (Relation, 4 options): does one of two marked regions hide the other from
the drone's view in the video? Height and viewpoint are not in the marks, so the annotator states
the relation in the fact 'occlusion' on either region, a list with one relation per other region:
    [{"other": <id of the other region>, "relation": "hides" | "hidden_by" | "mutual" | "none"}, ...]
each read from the carrying region's side ("hides": it hides part of the other). An item about two
regions reads the one relation each states about the other."""

from __future__ import annotations

import random
from typing import Any

from annotator.compiling.spatial import REGION_KINDS
from annotator.marking.facts import FACTS
from annotator.models import Item, Mark

from .base import CompiledItem, Fact, Need, Roles, Template, TemplateError, fact_field, register
from .options import choice_item

RELATIONS = FACTS["occlusion"].values
# The same relation read from the other region's side.
CONVERSE = {"hides": "hidden_by", "hidden_by": "hides", "mutual": "mutual", "none": "none"}
OCCLUSION = Fact("occlusion", "which of the two hides part of the other in the drone video, if either", required=False)
# How the fact is written through the API (the workspace's field writes it so).
OCCLUSION_FORMAT = (
    "a list of relations, one per other region: [{'other': <id of the other region>, "
    "'relation': 'hides', 'hidden_by', 'mutual' or 'none'}, ...]"
)


def stated_relation(carrier: Mark, other: Mark, carrier_name: str) -> str | None:
    """The relation the carrier's 'occlusion' list states about `other`, None when it states none.
    TemplateError when the fact is not a list of relations (written before the catalog checked it)."""
    fact: Any = carrier.facts.get(OCCLUSION.key)
    if fact is None:
        return None
    ok = isinstance(fact, list) and all(isinstance(e, dict) and e.get("relation") in RELATIONS for e in fact)
    if not ok:
        raise TemplateError(
            "facts.occlusion", f"the fact 'occlusion' on the {carrier_name} should be {OCCLUSION_FORMAT}"
        )
    return next((str(e["relation"]) for e in fact if e.get("other") == other.id), None)


def option_texts(a: str, b: str) -> dict[str, str]:
    """Each relation, read from the first region's side, as an option."""
    return {
        "hides": f"the {a} hides part of the {b}",
        "hidden_by": f"the {b} hides part of the {a}",
        "mutual": "each hides part of the other at some point",
        "none": "neither hides the other",
    }


@register
class OcclusionAttribution(Template):
    task = Item.Task.OCCLUSION_ATTRIBUTION
    name = "occlusion_attribution.v1"
    answer_format = Item.AnswerFormat.MULTIPLE_CHOICE
    needs = (Need("regions", REGION_KINDS, "two regions (polygons)", (2, 2), facts=(OCCLUSION,)),)
    shown_roles = ("regions",)
    derives = "The annotator's fact 'occlusion' on either region, read from the first region's side."
    phrasings = (
        "In the drone video, does the {a} block the view of the {b}, or the other way round?",
        "Which occlusion relationship between the marked {a} and {b} does the drone video show?",
        "As the drone flies, one marked region may hide another from view. What holds for the {a} and the {b}?",
        "Based on the video, how do the {a} and the {b} outlined on the satellite image occlude each other, if at all?",
        "Looking at the footage, is part of the {b} ever hidden behind the {a}, part of the {a} behind the {b}, "
        "both, or neither?",
        "Two regions are marked on the satellite image: the {a} and the {b}. Which statement about occlusion between "
        "them is true in the video?",
        "From the drone's viewpoint, which of the marked regions hides the other: the {a}, the {b}, each in turn, or "
        "neither?",
        "Does the video show the {a} covering part of the {b} from the camera's view, or the reverse?",
        "Consider the {a} and the {b} on the satellite image. What does the drone video reveal about one occluding "
        "the other?",
        "Which option best describes how the {a} and the {b} obstruct each other in the UAV footage?",
    )

    def build(self, roles: Roles, rng: random.Random) -> CompiledItem:
        a, b = roles.all("regions")
        relation = self._relation(a, b, roles)
        texts = option_texts(roles.name(a), roles.name(b))
        wording, question = self.phrase(rng, a=roles.name(a), b=roles.name(b))
        provenance = {**wording.provenance, "names": roles.named(), "relation": relation, "first_region": a.id}
        return choice_item(
            question=question, choices=list(texts.values()), answer=texts[relation], rng=rng, provenance=provenance
        )

    def fact_fields(self, marks: list[Mark]) -> list[dict[str, Any]]:
        """One field for the pair: the relation on the region that states it (the first one when
        neither does yet), its choices worded with both regions' names."""
        try:
            roles = self.roles(marks)
        except TemplateError:
            return []
        a, b = roles.all("regions")

        def relation(carrier: Mark, other: Mark) -> str | None:
            try:
                return stated_relation(carrier, other, roles.name(carrier))
            except TemplateError:  # shown as the task's problem; the field starts empty
                return None

        carrier, other = (b, a) if relation(a, b) is None and relation(b, a) is not None else (a, b)
        texts = option_texts(roles.name(carrier), roles.name(other))
        field = fact_field(
            mark=carrier,
            name=roles.name(carrier),
            fact=OCCLUSION,
            other=other.id,
            other_name=roles.name(other),
            what=f"as the drone video shows it: does the {roles.name(carrier)} hide the {roles.name(other)}?",
            required=True,
            value=relation(carrier, other),
        )
        field["choices"] = [{"value": r, "label": texts[r]} for r in RELATIONS]
        return [field]

    def _relation(self, a: Mark, b: Mark, roles: Roles) -> str:
        """The relation from a's side, from whichever region carries the fact; both must agree."""
        stated = []
        for carrier, other, flip in ((a, b, False), (b, a, True)):
            relation = stated_relation(carrier, other, roles.name(carrier))
            if relation is not None:
                stated.append(CONVERSE[relation] if flip else relation)
        if not stated:
            raise TemplateError(
                "facts.occlusion",
                f"set the fact 'occlusion' on the {roles.name(a)} or the {roles.name(b)} (a relation to the other "
                f"one): {OCCLUSION.what}",
            )
        if len(set(stated)) > 1:
            raise TemplateError(
                "facts.occlusion",
                f"the 'occlusion' facts of the {roles.name(a)} and the {roles.name(b)} disagree; correct one of them",
            )
        return stated[0]
