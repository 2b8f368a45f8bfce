"""Assisted trajectories: a request to track a target in the video and project it onto an image."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

TRACKING_STATES = ["pending", "running", "succeeded", "failed", "cancelled"]


class TrackingJob(models.Model):
    """One target tracked from a point or box at a time; on success a draft trajectory mark
    (Mark.draft) that its author corrects and confirms. Written by annotator.marking.assist."""

    class State(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        CANCELLED = "cancelled"

    class Direction(models.TextChoices):
        FORWARD = "forward"
        BACKWARD = "backward"
        BOTH = "both"

    scene = models.ForeignKey("annotator.Scene", on_delete=models.CASCADE, related_name="tracking_jobs")
    satellite_image = models.ForeignKey(
        "annotator.SatelliteImage", on_delete=models.CASCADE, related_name="tracking_jobs"
    )
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tracking_jobs")
    label = models.CharField(max_length=64)
    # Where the target was shown: video time, and its box (centre x, y, width, height) in video pixels.
    time_s = models.FloatField()
    box = models.JSONField()
    direction = models.CharField(max_length=8, choices=Direction.choices, default=Direction.FORWARD)
    duration_s = models.FloatField()  # how far from time_s to track, each way asked for
    # A batch (every target of a label in a clip) shares a key; the mark it started from, if any.
    batch_key = models.UUIDField(null=True, blank=True, db_index=True)
    from_mark = models.ForeignKey("annotator.Mark", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    state = models.CharField(max_length=16, choices=State.choices, default=State.PENDING)
    progress = models.PositiveSmallIntegerField(default=0)
    cancel_requested = models.BooleanField(default=False)
    error = models.TextField(blank=True)
    detail = models.CharField(max_length=300, blank=True)
    # Per tracked frame: {"t", "x", "y" (image px or null), "source", "uncertainty_m", "score"};
    # frames lost in the video or without a placement near enough carry null x, y.
    result = models.JSONField(default=dict, blank=True)
    mark = models.ForeignKey("annotator.Mark", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    # Written by the worker with every progress step: a running job silent for longer than
    # annotator.marking.assist.run.STALE_S lost its worker (taken up again, or cancelled at once).
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=Q(state__in=TRACKING_STATES), name="tracking_state_valid"),
            models.CheckConstraint(
                condition=Q(direction__in=["forward", "backward", "both"]), name="tracking_direction_valid"
            ),
            models.CheckConstraint(condition=Q(progress__lte=100), name="tracking_progress_range"),
            models.CheckConstraint(condition=Q(time_s__gte=0) & Q(duration_s__gt=0), name="tracking_times_valid"),
            models.CheckConstraint(condition=~Q(state="failed") | ~Q(error=""), name="tracking_failed_has_reason"),
        ]

    def __str__(self) -> str:
        return f"tracking #{self.pk} of {self.label!r} (scene {self.scene_id}): {self.state}"
