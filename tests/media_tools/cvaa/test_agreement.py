"""Two placements of one frame compared (media_tools/cvaa/agreement.py): a footprint turned upside down
disagrees though its centre is right, a shift inside the combined error agrees and one beyond it does not."""

from __future__ import annotations

import numpy as np
import pytest

from media_tools.cvaa.agreement import (
    CENTRE_SIGMAS,
    heading_difference_deg,
    placements_agreement,
    quad_heading_deg,
)
from media_tools.cvaa.placement import Placement

# A 100 x 60 footprint centred on (200, 300), its top edge up on the map (towards -y).
UP = np.array([[150, 270], [250, 270], [250, 330], [150, 330]], float)


def _placed(quad: np.ndarray, uncertainty_px: float = 3.0, source: str = "matching") -> Placement:
    return Placement(source, quad, (100, 60), 0.9, uncertainty_px)


def _turned(quad: np.ndarray, degrees: float) -> np.ndarray:
    c = quad.mean(axis=0)
    t = np.radians(degrees)
    r = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    return (quad - c) @ r.T + c


def test_heading_is_the_direction_of_the_frames_up_and_differences_fold_into_0_180() -> None:
    assert quad_heading_deg(UP) == pytest.approx(-90.0)
    assert quad_heading_deg(_turned(UP, 90)) == pytest.approx(0.0, abs=1e-9)
    assert heading_difference_deg(179.0, -179.0) == pytest.approx(2.0)
    assert heading_difference_deg(-90.0, 90.0) == pytest.approx(180.0)
    assert heading_difference_deg(10.0, 10.0) == 0.0


def test_a_reversed_footprint_on_the_right_spot_disagrees_by_its_heading_alone() -> None:
    # the corners in reverse order (TL <-> BR): the same area, the frame's up pointing down
    reversed_ = UP[[2, 3, 0, 1]]
    a = placements_agreement(_placed(UP), _placed(reversed_, 20.0, "telemetry"), heading_tolerance_deg=15)
    assert a.centre_px == pytest.approx(0.0) and a.heading_deg == pytest.approx(180.0)
    assert not a.agrees
    assert a.to_dict(0.5) == {
        "centre_px": 0.0,
        "centre_m": 0.0,
        "centre_sigmas": 0.0,
        "heading_deg": 180.0,
        "agrees": False,
    }


def test_small_turns_and_shifts_inside_the_combined_error_agree_and_larger_ones_do_not() -> None:
    ref = _placed(UP, 3.0)
    sigma = np.hypot(3.0, 4.0)  # 5 px combined
    inside = _placed(_turned(UP, 10) + np.array([CENTRE_SIGMAS * sigma - 1, 0]), 4.0, "telemetry")
    beyond = _placed(UP + np.array([CENTRE_SIGMAS * sigma + 1, 0]), 4.0, "telemetry")
    turned = _placed(_turned(UP, 16), 4.0, "telemetry")
    assert placements_agreement(ref, inside, heading_tolerance_deg=15).agrees
    far = placements_agreement(ref, beyond, heading_tolerance_deg=15)
    assert not far.agrees and far.centre_sigmas == pytest.approx(CENTRE_SIGMAS + 0.2)
    assert not placements_agreement(ref, turned, heading_tolerance_deg=15).agrees
    # without any stated error, only an exact centre agrees (and the distance is not divided by zero)
    exact = placements_agreement(_placed(UP, 0.0), _placed(UP + np.array([0.5, 0]), 0.0), heading_tolerance_deg=15)
    assert not exact.agrees and exact.centre_sigmas == float("inf")
    assert exact.to_dict(None)["centre_m"] is None
