"""What a track is projected through: the keyframes' placements on the image (KeyframePlacement, read
through annotator.processing.cvaa.placements_read), and, for times no keyframe placement covers, the
import's own footprint (FrameFootprint: the frame an orthophoto was made from, by its control points,
or the frame that is the image). Only placements with a homography can project a point."""

from __future__ import annotations

import numpy as np

from annotator.models import FrameFootprint, Keyframe, SatelliteImage, Scene
from annotator.processing.cvaa.placements_read import placement_from_row, placements_for
from media_tools.assist import PlacedKeyframe
from media_tools.cvaa import Placement
from media_tools.geo import GeoReference

_FOOTPRINT_SOURCE: dict[str, str] = {
    FrameFootprint.Source.HOMOGRAPHY: "control_points",
    FrameFootprint.Source.SAME_FRAME: "same_frame",
}


def metres_per_px(image: SatelliteImage) -> float | None:
    """Ground metres per image pixel at its centre, where the image is georeferenced."""
    return GeoReference.from_dict(image.georef).gsd_m() if image.georef else None


def _footprint_placement(fp: FrameFootprint, *, width: int, height: int, image: SatelliteImage) -> Placement:
    import cv2

    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    hom = cv2.getPerspectiveTransform(corners, np.asarray(fp.quad, np.float32))
    gsd = metres_per_px(image)
    # The control-point fit's residual is the error of the footprint; the frame itself has none.
    rms_px = (image.georef_rms_m or 0.0) / gsd if gsd and fp.source == FrameFootprint.Source.HOMOGRAPHY else 0.0
    return Placement(_FOOTPRINT_SOURCE[fp.source], np.asarray(fp.quad, float), (width, height), 1.0, rms_px, hom)


def placed_keyframes(*, scene: Scene, image: SatelliteImage) -> list[PlacedKeyframe]:
    """Every placement of the scene's frames on `image` that can project a point, by time (two queries
    plus one for the import's footprints). A keyframe placement at the footprint's time wins."""
    rows = placements_for(scene=scene, image=image)
    times = dict(Keyframe.objects.filter(video_id=scene.video_id).values_list("index", "time_s"))
    out = {
        round(times[index], 3): PlacedKeyframe(times[index], placement_from_row(row))
        for index, row in rows.items()
        if row.homography is not None and index in times
    }
    video = scene.video
    if video.width and video.height:
        for fp in FrameFootprint.objects.filter(scene=scene, satellite_image=image):
            key = round(fp.time_s, 3)
            if key not in out:
                placement = _footprint_placement(fp, width=video.width, height=video.height, image=image)
                out[key] = PlacedKeyframe(fp.time_s, placement)
    return [out[k] for k in sorted(out)]
