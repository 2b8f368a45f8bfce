"""A keyframe's telemetry footprint checked against the placement that outranked it (placements.py's
trust order): the winner is kept either way, and where the two disagree its details say by how much, so
the scene page can name a flight log whose heading or position is off (selectors.placement_notes)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from django.conf import settings

from media_tools.cvaa import placement as src
from media_tools.cvaa.agreement import placements_agreement
from media_tools.cvaa.placement import Placement

# Only sources verified against the image itself are a reference: a learned window is a box, not a view.
_REFERENCES = (src.CONTROL_POINTS, src.SAME_FRAME, src.MATCHING, src.CHAINING)


def heading_tolerance_deg() -> float:
    # Five times the heading error telemetry footprints are assumed to carry (settings): an honest
    # compass and gimbal stay well inside it, a yaw recorded for the wrong axis or reversed does not.
    return 5.0 * settings.SKYMARK_PLACEMENT_HEADING_ERROR_DEG


def telemetry_checked(best: Placement, candidates: Sequence[Placement | None], gsd_m: float | None) -> Placement:
    """`best`, with `details["telemetry_check"]` (media_tools.cvaa.agreement.Agreement as a dict) when it
    is a verified placement and the keyframe also had a telemetry footprint."""
    telemetry = next((c for c in candidates if c is not None and c.source == src.TELEMETRY), None)
    if telemetry is None or best.source not in _REFERENCES:
        return best
    agreement = placements_agreement(best, telemetry, heading_tolerance_deg=heading_tolerance_deg())
    details = {**best.details, "telemetry_check": agreement.to_dict(gsd_m)}
    return dataclasses.replace(best, details=details)
