"""Reads of per-keyframe placements (annotator.models.KeyframePlacement): the one place that says which
placement of a keyframe on an image is current, for the workspace, releases and assisted trajectories."""

from __future__ import annotations

import numpy as np

from annotator.models import KeyframePlacement, SatelliteImage, Scene
from media_tools.cvaa import Placement


def placement_from_row(row: KeyframePlacement) -> Placement:
    """The library's shape of a stored placement (what projection and serialization take)."""
    return Placement(
        source=row.source,
        quad=np.asarray(row.quad, float),
        frame_size=(row.frame_width, row.frame_height),
        confidence=row.confidence,
        uncertainty_px=row.uncertainty_px,
        homography=None if row.homography is None else np.asarray(row.homography, float),
        details=dict(row.details or {}),
    )


def placements_for(*, scene: Scene, image: SatelliteImage) -> dict[int, KeyframePlacement]:
    """Keyframe index -> its placement on `image` (one query); keyframes nobody placed are absent."""
    rows = KeyframePlacement.objects.filter(keyframe__video_id=scene.video_id, satellite_image=image).select_related(
        "keyframe"
    )
    return {row.keyframe.index: row for row in rows}
