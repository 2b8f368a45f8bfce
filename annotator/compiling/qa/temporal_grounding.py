"""Temporal Grounding (Localization, a timestamp): when does a marked region first appear in the
video? The region's fact 'first_seen_s' when set, else its start time; scored ACC@1s."""

from __future__ import annotations

import random

from annotator.compiling.spatial import REGION_KINDS
from annotator.models import Item

from .base import CompiledItem, Fact, Need, Roles, Template, register
from .options import open_item
from .roles import first_seen_s


def timestamp(t: float) -> str:
    """The key as a number of seconds to 0.01 s, without trailing zeros ("12.5", "3")."""
    return f"{t:.2f}".rstrip("0").rstrip(".")


FIRST_SEEN = Fact(
    "first_seen_s", "the video time in seconds when it first appears (else its start time is used)", False
)


@register
class TemporalGrounding(Template):
    task = Item.Task.TEMPORAL_GROUNDING
    name = "temporal_grounding.v1"
    answer_format = Item.AnswerFormat.TIMESTAMP
    needs = (Need("region", REGION_KINDS, "a region (polygon) the drone sees", facts=(FIRST_SEEN,)),)
    shown_roles = ("region",)
    derives = "The region's first-seen time (fact 'first_seen_s', else its start time), in seconds to 0.01 s."
    phrasings = (
        "At what time (in seconds) does the {region} marked on the satellite image first appear in the drone video?",
        "When does the marked {region} first come into the drone's view? Answer in seconds.",
        "How many seconds into the video is the {region} outlined on the satellite image first visible?",
        "Find the moment the drone camera first captures the marked {region}. Give the time in seconds.",
        "One {region} is marked on the satellite image. At which second of the video is it first seen?",
        "Give the timestamp, in seconds, of the first frame where the marked {region} shows up.",
        "In the drone footage, when is the marked {region} seen for the first time (seconds from the start)?",
        "From the start of the video, how long does it take until the marked {region} first appears (in seconds)?",
        "What is the earliest time in the drone video, in seconds, at which the {region} from the satellite image is "
        "visible?",
        "Watching from the beginning, at which second does the drone first show the marked {region}?",
    )

    def build(self, roles: Roles, rng: random.Random) -> CompiledItem:
        region = roles.one("region")
        name = roles.name(region)
        t = first_seen_s(region, name)
        wording, question = self.phrase(rng, region=name)
        source = "fact first_seen_s" if region.facts.get(FIRST_SEEN.key) is not None else "mark start time"
        return open_item(
            question=question,
            answer=timestamp(t),
            answer_format=self.answer_format,
            provenance={**wording.provenance, "names": roles.named(), "first_seen_s": t, "first_seen_from": source},
        )
