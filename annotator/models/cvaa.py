"""CVAA retrieval previews: model checkpoints, training runs, per-keyframe boxes, and the frame footprints
known from how a scene's image was made (DESIGN.md, "CVAA retrieval previews")."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

RUN_STATES = ["pending", "running", "succeeded", "failed"]


class CvaaCheckpoint(models.Model):
    """One model file (media_tools.cvaa checkpoint format). At most one is active: the one scene
    previews are computed with."""

    class Origin(models.TextChoices):
        TRAINED = "trained", "Trained here"
        UPLOADED = "uploaded", "Uploaded"

    file = models.FileField(upload_to="cvaa/checkpoints/", max_length=300)
    original_name = models.CharField(max_length=255)
    # The weights' digest the file records and the library verifies on every load; it also keys
    # the window-embedding cache, so equal weights share one cache whatever file they came in.
    sha256 = models.CharField(max_length=64, unique=True)
    size_bytes = models.BigIntegerField()
    config = models.JSONField(default=dict)
    # How it was made: steps, seed, device, best validation recall@1, pairs per source.
    metrics = models.JSONField(default=dict, blank=True)
    origin = models.CharField(max_length=16, choices=Origin.choices)
    active = models.BooleanField(default=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["active"], condition=Q(active=True), name="cvaa_one_active_checkpoint"),
            models.CheckConstraint(condition=Q(size_bytes__gt=0), name="cvaa_checkpoint_size_positive"),
            models.CheckConstraint(condition=Q(origin__in=["trained", "uploaded"]), name="cvaa_checkpoint_origin"),
        ]

    def __str__(self) -> str:
        return f"CVAA checkpoint #{self.pk} ({self.sha256[:12]}{', active' if self.active else ''})"


class CvaaTraining(models.Model):
    """A training run started from the API or `train_cvaa --enqueue` (runs on the `gpu` queue)."""

    class State(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    steps = models.PositiveIntegerField()
    seed = models.IntegerField(default=0)
    # {"preset": "small"|"tiny", "device": "", "activate": true}
    options = models.JSONField(default=dict, blank=True)
    state = models.CharField(max_length=16, choices=State.choices, default=State.PENDING)
    progress = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True)
    # What the run used and found ("3 sources, 212 real pairs, best recall@1 0.81 at step 400 on cuda").
    detail = models.CharField(max_length=300, blank=True)
    checkpoint = models.ForeignKey(CvaaCheckpoint, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=Q(steps__gte=1), name="cvaa_training_steps_positive"),
            models.CheckConstraint(condition=Q(state__in=RUN_STATES), name="cvaa_training_state_valid"),
            models.CheckConstraint(condition=Q(progress__lte=100), name="cvaa_training_progress_range"),
            models.CheckConstraint(condition=~Q(state="failed") | ~Q(error=""), name="cvaa_training_failed_has_reason"),
        ]

    def __str__(self) -> str:
        return f"CVAA training #{self.pk}: {self.state}"


class CvaaPreview(models.Model):
    """Where the retriever places one keyframe on one satellite image: the top-k boxes, best first."""

    class Source(models.TextChoices):
        CVAA = "cvaa", "CVAA retriever"

    keyframe = models.ForeignKey("annotator.Keyframe", on_delete=models.CASCADE, related_name="cvaa_previews")
    satellite_image = models.ForeignKey(
        "annotator.SatelliteImage", on_delete=models.CASCADE, related_name="cvaa_previews"
    )
    checkpoint = models.ForeignKey(CvaaCheckpoint, on_delete=models.CASCADE, related_name="previews")
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.CVAA)
    # Satellite pixels (x right, y down): boxes [[x1, y1, x2, y2], ...]; quads the frame's corners
    # TL, TR, BR, BL as placed (the window's turn says which way the frame's up points).
    boxes = models.JSONField()
    quads = models.JSONField()
    scores = models.JSONField()
    score = models.FloatField()  # scores[0], the raw cosine: not a confidence (calibration.py says why)
    # The top box's evidence (media_tools/cvaa/calibration.py): its margin over the best box elsewhere on
    # the image in robust standard deviations, that margin's extreme-value p-value, and the checkpoint's
    # calibrated probability that the box hits the true footprint (null for an uncalibrated checkpoint).
    margin_z = models.FloatField(null=True, blank=True)
    p_value = models.FloatField(null=True, blank=True)
    confidence = models.FloatField(null=True, blank=True)
    # A coarse grid of the best score per cell: {"cell_px": .., "rows": .., "cols": .., "values": [[..]]}.
    heatmap = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["keyframe_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["keyframe", "satellite_image", "checkpoint"], name="cvaa_preview_one_per_frame_image_model"
            ),
        ]

    def __str__(self) -> str:
        return f"CVAA preview of keyframe {self.keyframe_id} on image {self.satellite_image_id}: {self.score:.3f}"


class FrameFootprint(models.Model):
    """Where a video frame lies on a satellite image, known from how the image was made at import: an
    orthophoto warped from that frame with control points (a homography), or the frame itself used as
    the image. Exact for the frame at `time_s` only; other frames of a moving drone differ."""

    class Source(models.TextChoices):
        HOMOGRAPHY = "homography", "Control-point homography"
        SAME_FRAME = "same_frame", "The image is this frame"

    scene = models.ForeignKey("annotator.Scene", on_delete=models.CASCADE, related_name="frame_footprints")
    satellite_image = models.ForeignKey(
        "annotator.SatelliteImage", on_delete=models.CASCADE, related_name="frame_footprints"
    )
    time_s = models.FloatField()
    quad = models.JSONField()  # [[x, y] x 4]: the frame's TL, TR, BR, BL in satellite pixels
    source = models.CharField(max_length=16, choices=Source.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["scene_id", "time_s"]
        constraints = [
            models.UniqueConstraint(fields=["scene", "satellite_image", "time_s"], name="frame_footprint_unique"),
            models.CheckConstraint(condition=Q(time_s__gte=0), name="frame_footprint_time_nonneg"),
            models.CheckConstraint(condition=Q(source__in=["homography", "same_frame"]), name="frame_footprint_source"),
        ]

    def __str__(self) -> str:
        return f"footprint of scene {self.scene_id} @ {self.time_s:g} s on image {self.satellite_image_id}"


PLACEMENT_SOURCES = ["control_points", "same_frame", "matching", "chaining", "telemetry", "learned"]


class KeyframePlacement(models.Model):
    """Where one keyframe lies on one satellite image, from the best method that placed it
    (media_tools.cvaa.Placement): the footprint quad, the frame -> satellite homography where the method
    has one (what assisted trajectories project through), a confidence in [0, 1] and the expected corner
    error. Keyframes no method could place have no row."""

    class Source(models.TextChoices):
        CONTROL_POINTS = "control_points", "Control-point homography"
        SAME_FRAME = "same_frame", "The image is this frame"
        MATCHING = "matching", "Feature matching on the image"
        CHAINING = "chaining", "Chained from a neighbouring keyframe"
        TELEMETRY = "telemetry", "Telemetry (GPS, height, heading)"
        LEARNED = "learned", "Learned retriever"

    keyframe = models.ForeignKey("annotator.Keyframe", on_delete=models.CASCADE, related_name="placements")
    satellite_image = models.ForeignKey(
        "annotator.SatelliteImage", on_delete=models.CASCADE, related_name="keyframe_placements"
    )
    source = models.CharField(max_length=16, choices=Source.choices)
    quad = models.JSONField()  # [[x, y] x 4]: the frame's TL, TR, BR, BL in satellite pixels
    # 3x3 rows, keyframe-image pixels -> satellite pixels; null for a window-only (learned) placement.
    homography = models.JSONField(null=True, blank=True)
    frame_width = models.PositiveIntegerField()
    frame_height = models.PositiveIntegerField()
    confidence = models.FloatField()
    uncertainty_px = models.FloatField()
    uncertainty_m = models.FloatField(null=True, blank=True)  # where the image's ground resolution is known
    # Method-specific numbers: inliers, reprojection error, chained from which keyframe, drift flag ...
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["keyframe_id", "satellite_image_id"]
        constraints = [
            models.UniqueConstraint(fields=["keyframe", "satellite_image"], name="keyframe_placement_unique"),
            models.CheckConstraint(condition=Q(source__in=PLACEMENT_SOURCES), name="keyframe_placement_source"),
            models.CheckConstraint(
                condition=Q(confidence__gte=0) & Q(confidence__lte=1), name="keyframe_placement_confidence_range"
            ),
            models.CheckConstraint(condition=Q(uncertainty_px__gte=0), name="keyframe_placement_uncertainty_nonneg"),
        ]

    def __str__(self) -> str:
        where = f"keyframe {self.keyframe_id} on image {self.satellite_image_id}"
        return f"{where} by {self.source} ({self.confidence:.2f})"
