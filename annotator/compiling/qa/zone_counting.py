"""Zone Counting (Perception, a number): how many objects of a class are inside a region at a time.
The count comes from instance marks (points or ellipses labelled with the class whose centre lies in
the region at that time) when the annotator drew some of the class, else from the region's fact
'count'; when both exist they must agree. Marks of other labels are never counted, and do not stand
in for the stated count."""

from __future__ import annotations

import random
from typing import Any

from shapely.geometry import Point

from annotator.compiling.errors import TemplateError
from annotator.compiling.spatial import REGION_KINDS, SPOT_KINDS, region_of, spot_of
from annotator.models import Item, Mark

from .base import CompiledItem, Fact, Need, Roles, Template, register
from .options import open_item
from .roles import MAX_MARKS, fact_number, has_fact
from .wording import noun, plural, seconds

# An instance mark counts at time t when its time anchor is within this of t (instants) or its
# interval covers t widened by this much: marks are placed by scrubbing, which is not frame-exact.
COUNT_TIME_TOLERANCE_S = 0.5

CLASS = Fact("count_class", "the class to count, e.g. 'car' (not needed when the instance marks share a label)", False)
COUNT = Fact("count", "how many of the class are in it at its time (needed only without instance marks)", False)


def _at(mark: Mark, t: float) -> bool:
    end = mark.time_end if mark.time_end is not None else mark.time_start
    return mark.time_start - COUNT_TIME_TOLERANCE_S <= t <= end + COUNT_TIME_TOLERANCE_S


def _inside_at(region: Mark, spots: list[Mark]) -> list[Mark]:
    area, t = region_of(region), float(region.time_start)
    return [m for m in spots if m.id != region.id and _at(m, t) and area.covers(Point(spot_of(m)))]


def instances_for(region: Mark, spots: list[Mark]) -> list[Mark]:
    """The marks among `spots` that the region counts: labelled with its 'count_class' and inside
    it at its time. Without a class stated, the ones inside it then when they share one label
    (that label is the class), else none (the template then asks for the class)."""
    stated = region.facts.get(CLASS.key)
    inside = _inside_at(region, spots)
    if isinstance(stated, str) and stated.strip():
        return [m for m in inside if noun(m.label) == noun(stated)]
    return inside if len({noun(m.label) for m in inside}) == 1 else []


def _marked(n: int, klass: str) -> str:
    return f"1 marked {klass} is" if n == 1 else f"{n} marked {plural(klass)} are"


@register
class ZoneCounting(Template):
    task = Item.Task.ZONE_COUNTING
    name = "zone_counting.v2"
    answer_format = Item.AnswerFormat.NUMBER
    needs = (
        Need("region", REGION_KINDS, "a region (polygon) whose start time is the time of the count",
             facts=(CLASS, COUNT)),
        Need("instances", SPOT_KINDS, "optionally the counted objects as points or ellipses", (0, MAX_MARKS)),
    )  # fmt: skip
    shown_roles = ("region",)
    derives = (
        "Instance marks of the class whose centre is inside the region at the region's time are counted; "
        "without instance marks the region's fact 'count' is the key."
    )
    phrasings = (
        "How many {things} are inside the {region} at {time} of the drone video?",
        "At {time}, count the {things} within the marked {region}. How many are there?",
        "What is the number of {things} in the {region} outlined on the satellite image, as seen at {time}?",
        "In the drone video at {time}, how many {things} can be found in the marked {region}?",
        "Looking at the marked {region} at the {time} mark, how many {things} does it contain?",
        "Count the {things} that are in the {region} at {time}. Give a number.",
        "One {region} is marked on the satellite image. At {time} in the video, how many {things} are in it?",
        "How many {things} occupy the marked {region} when the video reaches {time}?",
        "Give the count of {things} located inside the {region} at {time} of the footage.",
        "When the drone video is at {time}, what number of {things} is in the outlined {region}?",
    )

    def build(self, roles: Roles, rng: random.Random) -> CompiledItem:
        region = roles.one("region")
        name = roles.name(region)
        t = float(region.time_start)
        instances = roles.all("instances")
        klass = self._class(region, name, instances)
        if any(noun(m.label) == klass for m in instances):
            count, derived = self._counted(region, name, klass, instances, t)
        else:  # no instance of the class marked: the stated count, whatever else was picked
            count = self._fact_count(region, name)
            derived = {"count_from": "fact", "excluded": {str(m.id): f"labelled {m.label}" for m in instances}}
        wording, question = self.phrase(rng, things=plural(klass), region=name, time=seconds(t))
        provenance = {**wording.provenance, "names": roles.named(), "count_class": klass, "time_s": t, **derived}
        return open_item(question=question, answer=str(count), answer_format=self.answer_format, provenance=provenance)

    def _class(self, region: Mark, name: str, instances: list[Mark]) -> str:
        stated = region.facts.get(CLASS.key)
        if isinstance(stated, str) and stated.strip():
            return noun(stated)
        labels = {noun(m.label) for m in instances}
        if len(labels) == 1:
            return labels.pop()
        raise TemplateError("facts.count_class", f"set the fact 'count_class' on the {name}: {CLASS.what}")

    def _fact_count(self, region: Mark, name: str) -> int:
        value = fact_number(region, COUNT.key, name, "a whole number, how many are in it at its time (0 or more)")
        if not value.is_integer():
            raise TemplateError("facts.count", f"the fact 'count' on the {name} must be a whole number, not {value}")
        return int(value)

    def _counted(
        self, region: Mark, name: str, klass: str, instances: list[Mark], t: float
    ) -> tuple[int, dict[str, Any]]:
        area = region_of(region)
        counted, excluded = [], {}
        for m in instances:
            if noun(m.label) != klass:
                excluded[str(m.id)] = f"labelled {m.label}"
            elif not _at(m, t):
                excluded[str(m.id)] = f"not marked at {seconds(t)}"
            elif not area.covers(Point(spot_of(m))):
                excluded[str(m.id)] = "outside the region"
            else:
                counted.append(m.id)
        if has_fact(region, COUNT.key) and self._fact_count(region, name) != len(counted):
            raise TemplateError(
                "facts.count",
                f"the fact 'count' on the {name} says {region.facts[COUNT.key]} but {_marked(len(counted), klass)} "
                f"inside it at {seconds(t)}; correct the fact or the marks",
            )
        derived = {"count_from": "instance marks", "counted": counted, "excluded": excluded,
                   "time_tolerance_s": COUNT_TIME_TOLERANCE_S}  # fmt: skip
        return len(counted), derived
