"""CVAA retrieval previews and keyframe placements (annotator.processing.cvaa): cache, device, display
thresholds, camera, the errors a telemetry footprint is given."""

from config import env

SKYMARK_CVAA_CACHE_DIR = env.CVAA_CACHE_DIR
SKYMARK_CVAA_DEVICE = env.CVAA_DEVICE or None
# The workspace shows a learned box only when both hold (media_tools/cvaa/calibration.py): the top
# window's margin over the rest of the image passes the extreme-value test at this level, and the
# checkpoint's calibration (fitted on held-out scenes) gives its top-1 box at least this probability of
# being a hit (IoU >= 0.5 with the true footprint). A checkpoint without calibration is gated by the
# test alone. The raw cosine score is no longer a threshold: it sat at 0.92-0.96 for any frame.
SKYMARK_CVAA_MIN_CONFIDENCE = env.CVAA_MIN_CONFIDENCE
SKYMARK_CVAA_SIGNIFICANCE = env.CVAA_SIGNIFICANCE
# Placements (KeyframePlacement) at least this confident are real training pairs (realpairs.py).
SKYMARK_CVAA_TRAIN_MIN_CONFIDENCE = env.CVAA_TRAIN_MIN_CONFIDENCE
SKYMARK_CVAA_TOP_K = 5
# Telemetry footprints: a pinhole camera of this horizontal field of view and pitch (-90 = nadir),
# the frame's aspect from the video. 81 deg is a DJI Phantom 3/4-class camera in 16:9.
SKYMARK_CVAA_CAMERA_HFOV_DEG = env.CVAA_CAMERA_HFOV_DEG
SKYMARK_CVAA_CAMERA_PITCH_DEG = env.CVAA_CAMERA_PITCH_DEG
# The confidence a keyframe placement needs for its box to go into a release's "with CVAA" question
# (review.releasing.alignment); each release records the value it was frozen with.
SKYMARK_CVAA_PRIOR_MIN_CONFIDENCE = env.CVAA_PRIOR_MIN_CONFIDENCE
# Uploaded checkpoint files larger than this are refused before reading.
SKYMARK_CVAA_MAX_CHECKPOINT_BYTES = 512 * 1024 * 1024
# Keyframe placements (annotator.processing.cvaa.placements): the workspace draws no footprint whose
# confidence is below this (it says "not placed (low confidence)"), and a placement below it is trusted
# after every placement that reaches it whatever their sources.
SKYMARK_PLACEMENT_MIN_CONFIDENCE = env.PLACEMENT_MIN_CONFIDENCE
SKYMARK_PLACEMENT_GPS_ERROR_M = env.PLACEMENT_GPS_ERROR_M
SKYMARK_PLACEMENT_TELEMETRY_SCALE_ERROR = env.PLACEMENT_TELEMETRY_SCALE_ERROR
SKYMARK_PLACEMENT_HEADING_ERROR_DEG = env.PLACEMENT_HEADING_ERROR_DEG
