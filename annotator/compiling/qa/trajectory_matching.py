"""Trajectory Matching (Localization, 4 options): which of four tracks drawn on the satellite image
is the path a target takes in the video? The wrong tracks are other targets' trajectories and the
true one reversed, mirrored, shifted or rotated, each a route at least a discrete Fréchet distance
(distractors.track_threshold) from the truth's and from each other's. No wrong track follows the
true path at another pace: the question asks for the route, and such a track would be one too."""

from __future__ import annotations

import random

from annotator.compiling.area import image_area
from annotator.compiling.distractors import TRACK_MIN_FRECHET_PX, TRACK_MIN_FRECHET_SHARE, Candidate, track_candidates
from annotator.compiling.errors import TemplateError
from annotator.compiling.tracks import COMPARE_SAMPLES, Track, track_of
from annotator.models import Item, Mark

from .base import CompiledItem, Need, Roles, Template, register
from .options import lettered_item
from .wording import seconds

POLYLINE = (Mark.Kind.POLYLINE,)


@register
class TrajectoryMatching(Template):
    task = Item.Task.TRAJECTORY_MATCHING
    name = "trajectory_matching.v2"
    answer_format = Item.AnswerFormat.MULTIPLE_CHOICE
    needs = (
        Need("track", POLYLINE, "the target's trajectory (a polyline, with vertex times or an interval)"),
        Need("decoys", POLYLINE, "optionally up to 3 other targets' trajectories as wrong options", (0, 3)),
    )
    derives = (
        "The target's trajectory is the key; decoys are other tracks and transformations of it whose routes differ "
        "from it by at least the stated discrete Fréchet distance."
    )
    phrasings = (
        "Which of the trajectories A-D on the satellite image does the {target} follow in the drone video between "
        "{start} and {end}?",
        "From {start} to {end}, the {target} moves through the scene. Which satellite trajectory (A, B, C or D) "
        "matches its path?",
        "Match the motion of the {target} in the video ({start}-{end}) to one of the paths A-D drawn on the "
        "satellite image.",
        "Of the four paths drawn on the satellite image, which one traces the movement of the {target} from {start} "
        "to {end}?",
        "Watch the {target} between {start} and {end}. Which lettered trajectory on the satellite image is its route?",
        "Which drawn path, A to D, is the route the {target} takes in the video from {start} until {end}?",
        "Trajectories A-D are drawn on the satellite image. Which one corresponds to the {target} in the footage "
        "between {start} and {end}?",
        "Between {start} and {end}, where does the {target} go? Pick the matching trajectory on the satellite image: "
        "A, B, C or D.",
        "Which satellite-view trajectory (A-D) agrees with how the {target} moves during {start}-{end} of the drone "
        "video?",
        "Identify the path of the {target}: along which candidate trajectory A-D on the satellite image does it "
        "travel from {start} to {end}?",
    )

    def build(self, roles: Roles, rng: random.Random) -> CompiledItem:
        mark = roles.one("track")
        name = roles.name(mark)
        truth = track_of(mark, name)
        start, end = self._interval(mark, truth, name)
        decoys = [(track_of(m, roles.name(m)), f"mark {m.id}") for m in roles.all("decoys")]
        area = image_area(mark.satellite_image)
        wrong, threshold = track_candidates(truth, decoys, area=area, rng=rng)
        wording, question = self.phrase(rng, target=name, start=seconds(start), end=seconds(end))
        geometry = {**truth.geometry(), "vertex_times": list(truth.times or [])}
        return lettered_item(
            question=question,
            truth=Candidate(geometry, "truth", {"frechet_to_truth": 0.0}),
            wrong=wrong,
            rng=rng,
            provenance={
                **wording.provenance,
                "names": roles.named(),
                "interval_s": [start, end],
                "distractors": {
                    "min_frechet_px": round(threshold, 1),
                    "min_frechet_share": TRACK_MIN_FRECHET_SHARE,
                    "min_frechet_floor_px": TRACK_MIN_FRECHET_PX,
                    "samples": COMPARE_SAMPLES,
                    "compared": "route (x, y; the clock is not compared)",
                    "decoy_marks": [m.id for m in roles.all("decoys")],
                    **area.provenance(),
                },
            },
        )

    def _interval(self, mark: Mark, track: Track, name: str) -> tuple[float, float]:
        if track.span is not None and track.span[1] > track.span[0]:
            return track.span
        if mark.time_end is not None and mark.time_end > mark.time_start:
            return float(mark.time_start), float(mark.time_end)
        raise TemplateError(
            "time_end",
            f"give the trajectory of the {name} the interval the target moves in (start and end), or a time per vertex",
        )
