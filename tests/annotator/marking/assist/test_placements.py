"""What a track is projected through: keyframe placements with a homography, and the import's footprint
where no keyframe placement is at its time."""

from __future__ import annotations

import numpy as np
import pytest

from annotator.marking.assist.placements import placed_keyframes
from annotator.models import FrameFootprint, KeyframePlacement

from .conftest import H

pytestmark = pytest.mark.django_db


def test_the_import_footprint_fills_in_where_no_keyframe_is_placed(square_scene) -> None:
    image = square_scene.satellite_images.get()
    # the import's footprint: the frame at 1.5 s made the image by control points (quad of H)
    quad = (np.array([[0, 0], [160, 0], [160, 120], [0, 120]], float) * 0.5 + [20, 10]).tolist()
    FrameFootprint.objects.create(scene=square_scene, satellite_image=image, time_s=1.5, quad=quad, source="homography")
    # and a window-only placement cannot project a point: left out
    KeyframePlacement.objects.filter(keyframe__index=1).update(homography=None, source="learned")

    placed = placed_keyframes(scene=square_scene, image=image)

    assert [(k.time_s, k.placement.source) for k in placed] == [(0.0, "control_points"), (1.5, "control_points")]
    footprint = placed[1].placement
    assert footprint.frame_size == (160, 120)
    assert footprint.uncertainty_px == 0.0  # the test image has no georeference, so no fit residual
    assert footprint.project(np.array([[40.0, 40.0]]))[0] == pytest.approx((H @ [40, 40, 1])[:2])


def test_a_keyframe_placement_at_the_footprints_time_wins(square_scene) -> None:
    image = square_scene.satellite_images.get()
    FrameFootprint.objects.create(
        scene=square_scene, satellite_image=image, time_s=0.0, quad=[[0, 0], [9, 0], [9, 9], [0, 9]],
        source="same_frame",
    )  # fmt: skip
    placed = placed_keyframes(scene=square_scene, image=image)
    assert [(k.time_s, k.placement.source) for k in placed] == [(0.0, "control_points"), (1.0, "control_points")]
    assert placed[0].placement.uncertainty_px == 1.0  # the keyframe placement's, not the footprint's
