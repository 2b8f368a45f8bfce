"""Target Visibility (Perception, yes/no): is a region marked on the satellite image seen in the
drone video at all? Only the annotator can tell, through the region's fact 'visible'."""

from __future__ import annotations

import random

from annotator.compiling.spatial import REGION_KINDS
from annotator.models import Item

from .base import CompiledItem, Fact, Need, Roles, YesNoTemplate, register
from .roles import fact_bool

VISIBLE = Fact("visible", "yes or no: is it seen anywhere in the drone video?")


@register
class TargetVisibility(YesNoTemplate):
    task = Item.Task.TARGET_VISIBILITY
    name = "target_visibility.v2"
    needs = (Need("region", REGION_KINDS, "one region (polygon)", facts=(VISIBLE,)),)
    shown_roles = ("region",)
    derives = "The region's fact 'visible' (set by the annotator from the video) is the key."
    phrasings = (
        "Is the {region} outlined on the satellite image visible at any point in the drone video?",
        "Does the drone video ever show the {region} marked on the satellite image?",
        "At some moment of the footage, does the marked {region} come into the drone's view?",
        "Can the {region} highlighted on the satellite image be seen anywhere in the UAV video?",
        "Watching the whole clip, would you spot the marked {region} from the satellite image?",
        "One {region} is marked on the satellite image. Does the drone camera capture it during the video?",
        "Is the marked {region} within the drone's field of view at least once?",
        "Compare the drone video with the satellite image: is the marked {region} filmed at some point?",
        "Is there any frame of the drone video in which the marked {region} can be seen?",
        "Does the drone fly over or past the marked {region} closely enough for it to show in the video?",
        "Somewhere in this UAV clip, does the {region} from the satellite image appear?",
    )
    negative_phrasings = (
        "Is the {region} outlined on the satellite image absent from the entire drone video?",
        "Does the marked {region} stay out of the drone's view for the whole video?",
        "Is it true that the drone video never shows the {region} marked on the satellite image?",
        "Would someone watching the full clip fail to see the marked {region} anywhere?",
        "Is the marked {region} missing from every frame of the drone footage?",
        "Throughout the UAV video, does the marked {region} remain unseen?",
        "Does the drone camera miss the {region} highlighted on the satellite image for the entire flight?",
        "One {region} is marked on the satellite image. Is it left out of the drone footage entirely?",
        "Compare the drone video with the satellite image: is the marked {region} never filmed?",
        "Is the marked {region} outside the drone's field of view in all of the video?",
    )

    def build(self, roles: Roles, rng: random.Random) -> CompiledItem:
        region = roles.one("region")
        name = roles.name(region)
        visible = fact_bool(region, VISIBLE.key, name, VISIBLE.what)
        return self.yes_no(rng, visible, {"region": name}, {"names": roles.named(), "visible": visible})
