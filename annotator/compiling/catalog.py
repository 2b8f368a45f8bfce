"""The benchmark's 12 tasks and the dimension each belongs to (scores are averaged per task,
then per dimension). Read by compiling, review, releases and scoring alike."""

from __future__ import annotations

from annotator.models import Item

T = Item.Task
TASK_DIMENSION: dict[str, str] = {
    T.TARGET_VISIBILITY: "perception",
    T.SCENE_ASSOCIATION: "perception",
    T.ZONE_COUNTING: "perception",
    T.EVENT_GEOLOCALIZATION: "localization",
    T.TRAJECTORY_MATCHING: "localization",
    T.TEMPORAL_GROUNDING: "localization",
    T.RELATIVE_DISTANCE: "relation",
    T.RELATIVE_DIRECTION: "relation",
    T.OCCLUSION_ATTRIBUTION: "relation",
    T.SPATIOTEMPORAL_ORDERING: "reasoning",
    T.REGION_INTERACTION: "reasoning",
    T.REGION_REACHABILITY: "reasoning",
}
DIMENSIONS = ("perception", "localization", "relation", "reasoning")
