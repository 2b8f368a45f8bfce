"""What compiling keeps beside items: each item's model view (the files a model is given) and the
question phrasings admins curate."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from .marks import Item


class ModelView(models.Model):
    """The item as a model sees it: the satellite image with the item's marks drawn and named as
    the question names them, one image per lettered option, and the video or the segment the item
    is about. Rendered by a job from the item's provenance; reviewers answer from it, releases ship it."""

    class State(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    item = models.OneToOneField("annotator.Item", on_delete=models.CASCADE, related_name="model_view")
    state = models.CharField(max_length=16, choices=State.choices, default=State.PENDING)
    progress = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True)
    image = models.ImageField(upload_to="modelviews/", max_length=300, blank=True)
    # The cut segment; blank when the item is about the whole video (the scene's own file is served).
    video = models.FileField(upload_to="modelviews/", max_length=300, blank=True)
    segment_start_s = models.FloatField(null=True, blank=True)
    segment_end_s = models.FloatField(null=True, blank=True)
    # How the segment was made, for people ("stream copy from the keyframe at 4.00 s").
    video_note = models.CharField(max_length=200, blank=True)
    # Option images in option order: [{"option": "A", "file": <stored name>}, ...].
    option_images = models.JSONField(default=list, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    # While running: until when its worker holds it (renewed as it works), and which claim of which
    # worker it belongs to; a view whose lease ran out is rendered again (annotator.compiling.views).
    lease_until = models.DateTimeField(null=True, blank=True)
    claim = models.CharField(max_length=32, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        # Workers take pending views from this table in order (the database is their queue).
        indexes = [models.Index(fields=["state", "id"], name="modelview_state_id")]
        constraints = [
            models.CheckConstraint(condition=Q(progress__lte=100), name="modelview_progress_range"),
            models.CheckConstraint(
                condition=Q(state__in=["pending", "running", "succeeded", "failed"]), name="modelview_state_valid"
            ),
            models.CheckConstraint(condition=~Q(state="failed") | ~Q(error=""), name="modelview_failed_has_reason"),
            models.CheckConstraint(
                condition=Q(segment_start_s__isnull=True)
                | Q(segment_end_s__gt=models.F("segment_start_s"), segment_start_s__gte=0),
                name="modelview_segment_ordered",
            ),
        ]

    def __str__(self) -> str:
        return f"model view of item {self.item_id}: {self.state}"


class ViewsSignal(models.Model):
    """One row: whether a message telling the `views` workers that views are pending is waiting in
    the broker (`sent` > `taken`). Senders skip a message while one waits, so views compiled one by
    one are still few messages; a worker marks it taken before it looks for pending views."""

    sent = models.PositiveBigIntegerField(default=0)
    taken = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"views messages: {self.sent} sent, {self.taken} taken"


class Phrasing(models.Model):
    """One way a task's question is asked. The built-in ones come from the templates (seeded by a
    migration, `builtin_index` is their place in the template); admins add their own and disable
    any. Yes/no tasks have phrasings for each polarity: "positive" expects yes when the fact holds."""

    class Polarity(models.TextChoices):
        POSITIVE = "positive"
        NEGATIVE = "negative"

    task = models.CharField(max_length=32, choices=Item.Task.choices)
    polarity = models.CharField(max_length=8, choices=Polarity.choices, default=Polarity.POSITIVE)
    text = models.TextField()
    enabled = models.BooleanField(default=True)
    builtin = models.BooleanField(default=False)
    builtin_index = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["task", "polarity", "builtin_index", "id"]
        constraints = [
            models.UniqueConstraint(fields=["task", "polarity", "text"], name="phrasing_unique_text"),
            models.CheckConstraint(
                condition=Q(builtin=False, builtin_index__isnull=True) | Q(builtin=True, builtin_index__isnull=False),
                name="phrasing_builtin_has_index",
            ),
            models.CheckConstraint(condition=Q(polarity__in=["positive", "negative"]), name="phrasing_polarity_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.task} ({self.polarity}): {self.text[:60]}"
