"""Event Geo-localization (Localization, 4 options): where on the satellite image does an event
seen in the video happen? The options are letters naming candidate points drawn on the image: the
event's own place and three others, each distractors.POINT_MIN_SEPARATION of the image's shorter
side from the event and from each other."""

from __future__ import annotations

import random

from annotator.compiling.area import image_area
from annotator.compiling.distractors import (
    POINT_EDGE_MARGIN,
    POINT_MIN_SEPARATION,
    Candidate,
    point_candidates,
    point_separation,
)
from annotator.compiling.spatial import SPOT_KINDS, spot_of
from annotator.models import Item

from .base import CompiledItem, Fact, Need, Roles, Template, register
from .options import lettered_item
from .roles import fact_text
from .wording import seconds

EVENT = Fact("event", "what happens there, as a short clause, e.g. 'the white van stops at the kerb'")


def clause(text: str) -> str:
    """An event description set into a sentence: a leading capital goes unless it starts an acronym."""
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


@register
class EventGeolocalization(Template):
    task = Item.Task.EVENT_GEOLOCALIZATION
    name = "event_geolocalization.v1"
    answer_format = Item.AnswerFormat.MULTIPLE_CHOICE
    needs = (
        Need("event", SPOT_KINDS, "the event's place as a point or ellipse, at the event's time", facts=(EVENT,)),
        Need("decoys", SPOT_KINDS, "optionally up to 3 other places (points or ellipses) as wrong options", (0, 3)),
    )
    derives = "The event mark's place is the key; three other places at a minimum separation are the distractors."
    phrasings = (
        "At {time} of the drone video, {event}. Which of the points A-D on the satellite image marks where this "
        "happens?",
        "Where on the satellite image does this take place: {event} (around {time} in the video)? Choose A, B, C or D.",
        "The drone video shows the following at {time}: {event}. Which lettered location on the satellite image is it?",
        "Locate the event on the satellite image. In the video, at {time}, {event}. Is it at A, B, C or D?",
        "Which candidate point (A-D) on the satellite map is where {event}, as seen at {time} of the footage?",
        "Around {time}, the UAV footage captures this: {event}. Pick the satellite location among A-D where it "
        "happens.",
        "Four points A-D are marked on the satellite image. At which one does the following happen at {time}: {event}?",
        "Geo-locate the moment at {time} when {event}: which of the points A-D on the satellite image is the place?",
        "In the drone video, {event} at {time}. Which marked location on the satellite image (A, B, C or D) matches?",
        "Find where {event} on the satellite image, given the drone video at {time}. Answer with A, B, C or D.",
    )

    def build(self, roles: Roles, rng: random.Random) -> CompiledItem:
        event = roles.one("event")
        what = clause(fact_text(event, EVENT.key, roles.name(event), EVENT.what).rstrip("."))
        image = event.satellite_image
        truth = spot_of(event)
        decoys = [(spot_of(m), f"mark {m.id}") for m in roles.all("decoys")]
        area = image_area(image)
        wrong = point_candidates(truth, decoys, area=area, rng=rng)
        wording, question = self.phrase(rng, event=what, time=seconds(event.time_start))
        return lettered_item(
            question=question,
            truth=Candidate({"type": "Point", "coordinates": [truth[0], truth[1]]}, "truth", {"distance_px": 0.0}),
            wrong=wrong,
            rng=rng,
            provenance={
                **wording.provenance,
                "names": roles.named(),
                "event": what,
                "time_s": event.time_start,
                "distractors": {
                    "min_separation_px": round(point_separation(image.width, image.height), 1),
                    "min_separation_share": POINT_MIN_SEPARATION,
                    "edge_margin_share": POINT_EDGE_MARGIN,
                    "decoy_marks": [m.id for m in roles.all("decoys")],
                    **area.provenance(),
                },
            },
        )
