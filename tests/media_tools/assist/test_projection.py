"""Projecting a track through keyframe placements: a known homography, interpolation between
keyframes, lost and unplaced frames, uncertainty in metres."""

from __future__ import annotations

import numpy as np
import pytest

from media_tools.assist import INTERPOLATE, NEAREST, PlacedKeyframe, TrackedFrame, project_track
from media_tools.cvaa import Placement


def _placement(h: np.ndarray, *, unc: float = 2.0, size: tuple[int, int] = (640, 480)) -> Placement:
    w, hh = size
    corners = np.array([[0, 0], [w, 0], [w, hh], [0, hh]], float)
    q = np.column_stack([corners, np.ones(4)]) @ h.T
    return Placement("control_points", q[:, :2] / q[:, 2:3], size, 0.9, unc, h)


H = np.array([[0.5, -0.1, 100.0], [0.08, 0.45, 40.0], [1e-5, 2e-5, 1.0]])


def test_points_go_through_a_known_homography() -> None:
    frames = [TrackedFrame(0, 0.0, 100.0, 200.0, 0.9), TrackedFrame(1, 1.0, 320.0, 10.0, 0.9)]
    out = project_track(
        frames,
        [PlacedKeyframe(0.0, _placement(H)), PlacedKeyframe(1.0, _placement(H))],
        video_size=(640, 480),
        metres_per_px=0.11,
    )
    for f, v in zip(frames, out, strict=True):
        w = H @ [f.x, f.y, 1.0]
        assert v.x == pytest.approx(w[0] / w[2]) and v.y == pytest.approx(w[1] / w[2])
        assert v.source == "control_points"
    # Corner error 2 px and a tracker pixel scaled by the homography (about 0.47 px here), in metres.
    assert out[0].uncertainty_px == pytest.approx(2.05, abs=0.03)
    assert out[0].uncertainty_m == pytest.approx(out[0].uncertainty_px * 0.11)


def test_the_video_is_rescaled_to_the_keyframe_size() -> None:
    half = _placement(H, size=(320, 240))
    out = project_track(
        [TrackedFrame(0, 0.0, 200.0, 100.0, 0.9)],
        [PlacedKeyframe(0.0, half)],
        video_size=(640, 480),
        metres_per_px=None,
    )
    w = H @ [100.0, 50.0, 1.0]
    assert (out[0].x, out[0].y) == (pytest.approx(w[0] / w[2]), pytest.approx(w[1] / w[2]))
    assert out[0].uncertainty_m is None


def test_between_keyframes_the_map_points_are_blended_in_time_or_the_nearest_is_taken() -> None:
    shifted = H.copy()
    shifted[0, 2] += 10.0  # the later keyframe's map is 10 px to the right
    kfs = [PlacedKeyframe(0.0, _placement(H, unc=0.0)), PlacedKeyframe(1.0, _placement(shifted, unc=0.0))]
    frame = TrackedFrame(3, 0.25, 100.0, 100.0, 0.9)
    w = H @ [100.0, 100.0, 1.0]
    at0 = w[0] / w[2]
    blended = project_track([frame], kfs, video_size=(640, 480), metres_per_px=1.0, mode=INTERPOLATE)[0]
    nearest = project_track([frame], kfs, video_size=(640, 480), metres_per_px=1.0, mode=NEAREST)[0]
    assert blended.x == pytest.approx(at0 + 2.5, abs=0.01)
    assert nearest.x == pytest.approx(at0, abs=1e-6)
    # Half the neighbours' 10 px disagreement counts in the blended vertex's uncertainty.
    assert blended.uncertainty_px is not None and blended.uncertainty_px > 5.0
    assert blended.source == "control_points"


def test_lost_frames_and_frames_far_from_any_placement_have_no_position() -> None:
    frames = [TrackedFrame(0, 0.0, None, None, 0.1), TrackedFrame(1, 30.0, 10.0, 10.0, 0.9)]
    out = project_track(frames, [PlacedKeyframe(0.0, _placement(H))], video_size=(640, 480), metres_per_px=0.1)
    assert [(v.x, v.source) for v in out] == [(None, "lost"), (None, "unplaced")]


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown projection mode"):
        project_track([], [], video_size=(1, 1), metres_per_px=None, mode="spline")


def test_the_trackers_own_back_check_error_widens_the_vertex_uncertainty() -> None:
    # given the same point tracked confidently (back-check 0.2 px) and unsurely (12 px)
    kfs = [PlacedKeyframe(0.0, _placement(np.diag([2.0, 2.0, 1.0]), unc=0.0))]
    sure = TrackedFrame(0, 0.0, 100.0, 100.0, 0.9, fb_px=0.2)
    unsure = TrackedFrame(0, 0.0, 100.0, 100.0, 0.6, fb_px=12.0)
    out = project_track([sure, unsure], kfs, video_size=(640, 480), metres_per_px=0.1)
    # then each shows its tracker error, scaled 2x by the homography: sqrt(1 + fb^2) frame pixels
    assert out[0].uncertainty_px == pytest.approx(2 * np.hypot(1.0, 0.2), rel=1e-3)
    assert out[1].uncertainty_px == pytest.approx(2 * np.hypot(1.0, 12.0), rel=1e-3)
    assert out[1].uncertainty_m == pytest.approx(out[1].uncertainty_px * 0.1)
