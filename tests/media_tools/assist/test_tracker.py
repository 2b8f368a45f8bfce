"""The template tracker on generated clips: a moving square followed to within a pixel, lost frames
marked (not invented), progress and cancel."""

from __future__ import annotations

import numpy as np
import pytest

from media_tools.assist import Box, Frame, track


def _square_clip(n: int, *, hide: range = range(0), seed: int = 0) -> tuple[list[Frame], np.ndarray]:
    """A 24-px textured square moving 3.4 px right and 1.7 px down per frame on a noisy background;
    returns the frames and the true centres (sub-pixel: the square is drawn at sub-pixel offsets by
    area averaging on a 4x grid)."""
    rng = np.random.default_rng(seed)
    pattern = rng.integers(120, 255, (24, 24)).astype(np.float32)
    centres = np.array([[60 + 3.4 * i, 50 + 1.7 * i] for i in range(n)])
    frames = []
    for i, (cx, cy) in enumerate(centres):
        big = np.full((240 * 4, 320 * 4), 40, np.float32)
        if i not in hide:
            x0, y0 = round((cx - 12) * 4), round((cy - 12) * 4)
            big[y0 : y0 + 96, x0 : x0 + 96] = np.kron(pattern, np.ones((4, 4)))
        img = big.reshape(240, 4, 320, 4).mean(axis=(1, 3)) + rng.normal(0, 3, (240, 320))
        frames.append(Frame(i, i / 10, np.clip(img, 0, 255).astype(np.uint8)))
    return frames, centres


def test_a_moving_square_is_tracked_to_within_a_pixel() -> None:
    frames, truth = _square_clip(40)
    result = track(frames, Box(60, 50, 32, 32))
    assert len(result.frames) == 40
    assert not any(f.lost for f in result.frames)
    got = np.array([[f.x, f.y] for f in result.frames])
    error = np.linalg.norm(got - truth, axis=1)
    assert error.max() < 1.0, error.max()


def test_frames_where_the_target_is_hidden_are_lost_and_it_is_found_again() -> None:
    frames, truth = _square_clip(30, hide=range(12, 15))
    result = track(frames, Box(60, 50, 32, 32))
    lost = [f.index for f in result.frames if f.lost]
    assert lost == [12, 13, 14]
    after = [f for f in result.frames if f.index >= 15]
    assert all(np.hypot(f.x - truth[f.index][0], f.y - truth[f.index][1]) < 1.0 for f in after)  # type: ignore[operator]


def test_tracking_backward_walks_the_frames_in_reverse() -> None:
    frames, truth = _square_clip(20)
    result = track(list(reversed(frames)), Box(*truth[-1], 32, 32))
    assert [f.index for f in result.frames] == list(range(19, -1, -1))
    assert np.hypot(result.frames[-1].x - truth[0][0], result.frames[-1].y - truth[0][1]) < 1.0  # type: ignore[operator]


def test_tracking_stops_after_too_many_lost_frames() -> None:
    frames, _ = _square_clip(40, hide=range(5, 40))
    result = track(frames, Box(60, 50, 32, 32))
    assert [f.index for f in result.frames if not f.lost] == [0, 1, 2, 3, 4]
    assert len(result.frames) == 5 + 11  # ten lost frames are searched for, the eleventh stops it


def test_progress_is_reported_and_cancel_stops_between_frames() -> None:
    frames, _ = _square_clip(20)
    seen: list[int] = []
    result = track(frames, Box(60, 50, 32, 32), total=20, progress=seen.append, cancelled=lambda: len(seen) >= 5)
    assert result.cancelled
    assert len(result.frames) == 6
    assert seen == [10, 15, 20, 25, 30]


def test_a_box_on_a_flat_patch_or_off_the_frame_is_refused() -> None:
    frames, _ = _square_clip(3)
    with pytest.raises(ValueError, match="no texture"):
        track(frames, Box(250, 200, 20, 20))
    with pytest.raises(ValueError, match="inside the frame"):
        track(frames, Box(2, 2, 32, 32))
