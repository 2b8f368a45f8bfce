"""A scene whose video shows a textured square moving right and down, placed on its 200x100 image
by a known homography at two keyframes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from annotator.models import KeyframePlacement
from tests.factories import KeyframeFactory, SceneFactory, VideoFactory

# The square's centre at frame i (10 fps, 20 frames), in video pixels (160 x 120).
STEP = (3.0, 1.5)
START = (40.0, 40.0)
# Video pixels -> image pixels: half size, shifted 20 px right and 10 px down.
H = np.array([[0.5, 0.0, 20.0], [0.0, 0.5, 10.0], [0.0, 0.0, 1.0]])


def centre(i: int) -> tuple[float, float]:
    return START[0] + STEP[0] * i, START[1] + STEP[1] * i


def square_clip(path: Path, *, frames: int = 20) -> Path:
    rng = np.random.default_rng(3)
    pattern = rng.integers(120, 255, (20, 20, 3)).astype(np.uint8)
    out = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (160, 120))
    for i in range(frames):
        img = np.full((120, 160, 3), 40, np.uint8)
        cx, cy = centre(i)
        img[round(cy) - 10 : round(cy) + 10, round(cx) - 10 : round(cx) + 10] = pattern
        out.write(img)
    out.release()
    return path


@pytest.fixture
def square_scene(annotator: Any, tmp_path: Path) -> Any:
    video = VideoFactory(
        source=square_clip(tmp_path / "square.avi"), duration_s=1.9, fps=10.0, frame_count=20, width=160, height=120
    )
    scene = SceneFactory(video=video, annotators=[annotator])
    image = scene.satellite_images.get()
    corners = np.array([[0, 0], [160, 0], [160, 120], [0, 120]], float) * 0.5 + [20, 10]
    for index, t in ((0, 0.0), (1, 1.0)):
        kf = KeyframeFactory(video=video, index=index, time_s=t)
        KeyframePlacement.objects.create(
            keyframe=kf, satellite_image=image, source="control_points", quad=corners.tolist(),
            homography=H.tolist(), frame_width=160, frame_height=120, confidence=1.0, uncertainty_px=1.0,
        )  # fmt: skip
    return scene
