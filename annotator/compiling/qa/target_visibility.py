"""Target Visibility (Perception, yes/no): is a region marked on the satellite image seen in
the drone video at all?"""

from __future__ import annotations

import random

from annotator.models import Item, Mark

from .base import CompiledItem, Template, TemplateError, register

REGION_KINDS = (Mark.Kind.POLYGON, Mark.Kind.ELLIPSE)


@register
class TargetVisibility(Template):
    task = Item.Task.TARGET_VISIBILITY
    name = "target_visibility.v1"
    phrasings = (
        "Is the {label} outlined on the satellite image visible at any point in the drone video?",
        "Does the drone video ever show the {label} marked on the satellite image?",
        "Looking at the whole drone video, does the marked {label} region on the satellite image appear in it?",
        "Can the {label} highlighted in the satellite image be seen anywhere in the UAV footage?",
        "Does the UAV camera capture the {label} region marked on the satellite map during the video?",
        "Is the marked {label} on the satellite image within the drone's view at some time in the video?",
        "At any moment of the video, is the {label} indicated on the satellite image in view?",
        "Does the satellite region labelled {label} come into the drone's field of view?",
        "Would a viewer of the drone video see the {label} that is marked on the satellite image?",
        "Is the satellite-marked {label} observed by the drone at least once in this clip?",
        "Does the {label} region drawn on the satellite image appear in the drone footage?",
    )

    def compile(self, marks: list[Mark], rng: random.Random) -> CompiledItem:
        if len(marks) != 1:
            raise TemplateError("marks", "Target Visibility takes exactly one region mark")
        mark = marks[0]
        if mark.kind not in REGION_KINDS:
            raise TemplateError("marks", f"Target Visibility needs a polygon or ellipse region, not a {mark.kind}")
        visible = mark.facts.get("visible")
        if not isinstance(visible, bool):
            raise TemplateError("facts.visible", "set the mark's fact 'visible in video?' to yes or no first")
        index = rng.randrange(len(self.phrasings))
        question = self.phrasings[index].format(label=mark.label or "region")
        return CompiledItem(
            question=question,
            options=["yes", "no"],
            answer="yes" if visible else "no",
            answer_format=Item.AnswerFormat.YES_NO,
            provenance={"phrasing": index},
        )
