"""Whether two placements of one frame tell the same story: used to check a telemetry footprint
against the placement that won over it (matching, control points, chaining), so a flight log whose
heading is reversed or whose position is off gets named instead of silently outranked.

Two numbers say it: how far apart the footprints' centres are, against their combined expected error,
and by how much the frames' "up" directions differ. A gimbal yaw recorded 180° off (seen on real DJI
logs: the return leg of a survey) turns the telemetry footprint upside down while its centre stays put,
so the heading is checked on its own and not only through the corners.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .placement import Placement

# Centres further apart than this many combined standard errors disagree (3σ: about 1 in 100 agreeing
# pairs of normal errors lands beyond it in two dimensions).
CENTRE_SIGMAS = 3.0


def quad_heading_deg(quad: np.ndarray) -> float:
    """Direction of the frame's "up" on the map, in degrees from the image's +x axis towards +y (the
    bottom edge's midpoint to the top edge's; corners TL, TR, BR, BL)."""
    q = np.asarray(quad, float)
    top, bottom = (q[0] + q[1]) / 2, (q[2] + q[3]) / 2
    dx, dy = top - bottom
    return math.degrees(math.atan2(dy, dx))


def heading_difference_deg(a: float, b: float) -> float:
    """|a - b| folded into [0, 180]."""
    d = (a - b) % 360.0
    return min(d, 360.0 - d)


@dataclass(frozen=True)
class Agreement:
    centre_px: float  # distance between the footprints' centres, satellite pixels
    centre_sigmas: float  # the same over the combined expected error (hypot of both uncertainties)
    heading_deg: float  # difference of the frames' up directions, 0-180
    agrees: bool

    def to_dict(self, gsd_m: float | None) -> dict[str, float | bool | None]:
        return {
            "centre_px": round(self.centre_px, 1),
            "centre_m": None if gsd_m is None else round(self.centre_px * gsd_m, 2),
            "centre_sigmas": round(self.centre_sigmas, 2),
            "heading_deg": round(self.heading_deg, 1),
            "agrees": self.agrees,
        }


def placements_agreement(reference: Placement, other: Placement, *, heading_tolerance_deg: float) -> Agreement:
    """How `other` compares with `reference` (module doc). They agree when the centres are within
    CENTRE_SIGMAS of the combined uncertainty and the headings within `heading_tolerance_deg`."""
    a, b = np.asarray(reference.quad, float), np.asarray(other.quad, float)
    centre = float(np.linalg.norm(a.mean(axis=0) - b.mean(axis=0)))
    sigma = math.hypot(reference.uncertainty_px, other.uncertainty_px)
    sigmas = centre / sigma if sigma > 0 else (0.0 if centre == 0 else math.inf)
    heading = heading_difference_deg(quad_heading_deg(a), quad_heading_deg(b))
    return Agreement(
        centre_px=centre,
        centre_sigmas=sigmas,
        heading_deg=heading,
        agrees=sigmas <= CENTRE_SIGMAS and heading <= heading_tolerance_deg,
    )
