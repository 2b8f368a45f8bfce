"""Decoding a stretch of video forward and backward for tracking."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from media_tools.assist import decode


def _clip(path: Path, n: int = 12) -> None:
    out = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 4.0, (64, 48))
    for i in range(n):
        img = np.zeros((48, 64, 3), np.uint8)
        img[:, : 4 * (i + 1)] = 200  # the bright part grows with the frame number
        out.write(img)
    out.release()


def test_forward_and_backward_give_the_stretch_in_tracking_order(tmp_path: Path) -> None:
    video = tmp_path / "clip.avi"
    _clip(video)
    fwd = list(decode(video, start_s=1.0, end_s=2.0))
    assert [f.index for f in fwd] == [4, 5, 6, 7, 8]
    assert [round(f.time_s, 2) for f in fwd] == [1.0, 1.25, 1.5, 1.75, 2.0]
    assert fwd[0].gray.ndim == 2
    assert int((fwd[0].gray[10] > 100).sum()) == 20  # frame 4 is bright over 4 * 5 columns
    back = list(decode(video, start_s=1.0, end_s=2.0, backward=True))
    assert [f.index for f in back] == [8, 7, 6, 5, 4]
