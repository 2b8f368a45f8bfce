"""Scene Association (Perception, 4 options): which of four regions drawn on the satellite image
does the drone film in a given video segment? The true region's time interval is the segment; the
wrong regions are the annotator's decoys and the true region turned and moved elsewhere in the
image, each overlapping the others by less than distractors.REGION_MAX_IOU."""

from __future__ import annotations

import random

from annotator.compiling.area import image_area
from annotator.compiling.distractors import REGION_MAX_IOU, Candidate, region_candidates
from annotator.compiling.errors import TemplateError
from annotator.compiling.spatial import REGION_KINDS
from annotator.models import Item

from .base import CompiledItem, Need, Roles, Template, register
from .options import lettered_item
from .wording import seconds


@register
class SceneAssociation(Template):
    task = Item.Task.SCENE_ASSOCIATION
    name = "scene_association.v1"
    answer_format = Item.AnswerFormat.MULTIPLE_CHOICE
    needs = (
        Need("region", REGION_KINDS, "a region (polygon) whose time interval is the video segment"),
        Need("decoys", REGION_KINDS, "optionally up to 3 other regions of the same image as wrong options", (0, 3)),
    )
    derives = "The region tied to the segment is the key; the options are drawn as A-D on the image."
    phrasings = (
        "Between {start} and {end} of the drone video, which of the regions A-D on the satellite image is the drone "
        "filming?",
        "Which marked region (A, B, C or D) on the satellite image corresponds to the drone video from {start} to "
        "{end}?",
        "The drone footage from {start} to {end} shows part of the scene. Which lettered region on the satellite "
        "image is it?",
        "Match the video segment {start}-{end} to the satellite image: which of the regions A-D does it show?",
        "From {start} until {end}, the drone looks at one of the four regions marked on the satellite image. Which "
        "one?",
        "Of the regions lettered A to D on the satellite image, which one appears in the drone video between {start} "
        "and {end}?",
        "Where on the satellite image was the segment from {start} to {end} filmed: region A, B, C or D?",
        "Watch the clip between {start} and {end}. Which satellite region among A-D does it cover?",
        "Which candidate region (A-D) on the satellite image is in view during {start}-{end} of the drone video?",
        "In the interval {start} to {end}, the UAV camera captures an area of the map. Which of the marked regions "
        "A-D is it?",
    )

    def build(self, roles: Roles, rng: random.Random) -> CompiledItem:
        region = roles.one("region")
        name = roles.name(region)
        start, end = region.time_start, region.time_end
        if end is None or end <= start:
            raise TemplateError("time_end", f"give the {name} the video segment it is seen in: a start and an end time")
        if region.facts.get("visible") is False:
            raise TemplateError(
                "facts.visible",
                f"the {name} is marked as never seen in the video; Scene Association needs a region the drone films",
            )
        area = image_area(region.satellite_image)
        decoys = [(m.geometry, f"mark {m.id}") for m in roles.all("decoys")]
        wrong = region_candidates(region.geometry, decoys, area=area, rng=rng)
        wording, question = self.phrase(rng, start=seconds(start), end=seconds(end))
        return lettered_item(
            question=question,
            truth=Candidate(region.geometry, "truth", {"iou_with_truth": 1.0}),
            wrong=wrong,
            rng=rng,
            provenance={
                **wording.provenance,
                "names": roles.named(),
                "segment_s": [start, end],
                "distractors": {
                    "max_iou": REGION_MAX_IOU,
                    "decoy_marks": [m.id for m in roles.all("decoys")],
                    **area.provenance(),
                },
            },
        )
