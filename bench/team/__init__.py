"""A team building a benchmark from the demo data through the platform's services: the scenes imported
and processed, annotators drawing marks and compiling items, reviewers answering blind and deciding,
an admin releasing. Used by bench/integrity.py and its test; import after Django is set up (except
this module, which holds what the command line needs before)."""

from __future__ import annotations

from dataclasses import dataclass, field

# Options per task (0: a number or a time), as the templates make them.
OPTIONS = {"target_visibility": 2, "scene_association": 4, "zone_counting": 0, "event_geolocalization": 4,
           "trajectory_matching": 4, "temporal_grounding": 0, "relative_distance": 5, "relative_direction": 8,
           "occlusion_attribution": 4, "spatiotemporal_ordering": 6, "region_interaction": 3,
           "region_reachability": 2}  # fmt: skip


def options_of(task: str) -> int:
    """How many options a task's items offer (0: a number or a time)."""
    return OPTIONS[task]


@dataclass
class Tally:
    """What the build did, for the report."""

    annotators: int = 0
    marks: int = 0
    batches: int = 0
    batch_items: int = 0
    singles: int = 0
    refused: int = 0
    submitted: int = 0
    reviews: int = 0
    rejected: int = 0
    revised: int = 0
    adjudicated: int = 0
    released: int = 0
    render_s: float = 0.0  # drawing model views, inside "submit + review"
    seconds: dict[str, float] = field(default_factory=dict)
