"""CVAA retrieval previews (annotator.processing.cvaa): cache, device, display threshold, camera."""

from config import env

SKYMARK_CVAA_CACHE_DIR = env.CVAA_CACHE_DIR
SKYMARK_CVAA_DEVICE = env.CVAA_DEVICE or None
# Cosine similarity of the best window under which the workspace hides the box (it is a guess then).
SKYMARK_CVAA_MIN_SCORE = env.CVAA_MIN_SCORE
SKYMARK_CVAA_TOP_K = 5
# Telemetry footprints: a pinhole camera of this horizontal field of view and pitch (-90 = nadir),
# the frame's aspect from the video. 81 deg is a DJI Phantom 3/4-class camera in 16:9.
SKYMARK_CVAA_CAMERA_HFOV_DEG = env.CVAA_CAMERA_HFOV_DEG
SKYMARK_CVAA_CAMERA_PITCH_DEG = env.CVAA_CAMERA_PITCH_DEG
# Uploaded checkpoint files larger than this are refused before reading.
SKYMARK_CVAA_MAX_CHECKPOINT_BYTES = 512 * 1024 * 1024
