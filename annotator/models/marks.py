"""Marks drawn on satellite images and the QA items compiled from them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Mark(models.Model):
    class Kind(models.TextChoices):
        ELLIPSE = "ellipse"
        POINT = "point"
        POLYGON = "polygon"
        POLYLINE = "polyline"

    scene = models.ForeignKey("annotator.Scene", on_delete=models.CASCADE, related_name="marks")
    satellite_image = models.ForeignKey("annotator.SatelliteImage", on_delete=models.PROTECT, related_name="marks")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="marks")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # GeoJSON-like geometry in image pixels (x right, y down); ellipses carry center/radii/rotation.
    geometry = models.JSONField()
    label = models.CharField(max_length=64)
    # Time anchor in video seconds: an instant when time_end is null, else an interval.
    time_start = models.FloatField()
    time_end = models.FloatField(null=True, blank=True)
    # Polylines: one video time per vertex (trajectory); empty for other kinds.
    vertex_times = models.JSONField(default=list, blank=True)
    facts = models.JSONField(default=dict, blank=True)
    version = models.PositiveIntegerField(default=1)
    # True while an item in review or approved uses the mark: it cannot change or go. Written
    # only by annotator.compiling.lifecycle as items change state; read by every edit path.
    locked = models.BooleanField(default=False)
    # Copy on write: the author edited a locked mark for the drafts and rejected items built on it;
    # they moved to this copy while the items in review or approved keep the original.
    copied_from = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="copies")
    # A key the client draws for each new mark: a create sent again (its answer was lost) finds the
    # mark the first one made instead of making a second (annotator.marking.services.mark_create).
    client_key = models.UUIDField(null=True, blank=True)
    # A trajectory the tracker drew (annotator.marking.assist): its author corrects it like any mark,
    # and it is final only once they confirm it; items cannot be compiled from a draft.
    draft = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=["ellipse", "point", "polygon", "polyline"]), name="mark_kind_valid"
            ),
            models.UniqueConstraint(
                fields=["author", "client_key"], condition=Q(client_key__isnull=False), name="mark_client_key_once"
            ),
            models.CheckConstraint(condition=Q(time_start__gte=0), name="mark_time_start_nonneg"),
            models.CheckConstraint(
                condition=Q(time_end__isnull=True) | Q(time_end__gte=models.F("time_start")),
                name="mark_interval_ordered",
            ),
            models.CheckConstraint(condition=Q(version__gte=1), name="mark_version_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.label!r} (scene {self.scene_id})"


class Item(models.Model):
    class Task(models.TextChoices):
        TARGET_VISIBILITY = "target_visibility", "Target Visibility"
        SCENE_ASSOCIATION = "scene_association", "Scene Association"
        ZONE_COUNTING = "zone_counting", "Zone Counting"
        EVENT_GEOLOCALIZATION = "event_geolocalization", "Event Geo-localization"
        TRAJECTORY_MATCHING = "trajectory_matching", "Trajectory Matching"
        TEMPORAL_GROUNDING = "temporal_grounding", "Temporal Grounding"
        RELATIVE_DISTANCE = "relative_distance", "Relative Distance"
        RELATIVE_DIRECTION = "relative_direction", "Relative Direction"
        OCCLUSION_ATTRIBUTION = "occlusion_attribution", "Occlusion Attribution"
        SPATIOTEMPORAL_ORDERING = "spatiotemporal_ordering", "Spatiotemporal Ordering"
        REGION_INTERACTION = "region_interaction", "Region Interaction"
        REGION_REACHABILITY = "region_reachability", "Region Reachability"

    class AnswerFormat(models.TextChoices):
        YES_NO = "yes_no"
        MULTIPLE_CHOICE = "multiple_choice"
        NUMBER = "number"
        TIMESTAMP = "timestamp"

    class State(models.TextChoices):
        DRAFT = "draft"
        IN_REVIEW = "in_review"
        # Reviewers disagreed, or a blind answer contradicted the key: an adjudicator decides.
        IN_ADJUDICATION = "in_adjudication"
        APPROVED = "approved"
        REJECTED = "rejected"
        # The author gave up on a rejected item: it never returns to a queue and is never released.
        WITHDRAWN = "withdrawn"

    scene = models.ForeignKey("annotator.Scene", on_delete=models.PROTECT, related_name="items")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="items")
    task = models.CharField(max_length=32, choices=Task.choices)
    question = models.TextField()
    options = models.JSONField(default=list)
    answer = models.CharField(max_length=200)
    answer_format = models.CharField(max_length=16, choices=AnswerFormat.choices)
    marks = models.ManyToManyField("annotator.Mark", related_name="items")
    template = models.CharField(max_length=64)
    seed = models.BigIntegerField()
    # Snapshot of the marks (id, version, geometry, facts) the item was compiled from.
    provenance = models.JSONField(default=dict)
    state = models.CharField(max_length=16, choices=State.choices, default=State.DRAFT)
    # Counts the author's revisions after rejections: reviews, assignments and audit events carry
    # the revision they were about, so earlier rounds stay readable. Written only by the lifecycle.
    revision = models.PositiveIntegerField(default=1)
    # A mark it was compiled from changed (or went) since: it cannot be submitted or approved
    # until it is compiled again. Written only by annotator.compiling.lifecycle.
    stale = models.BooleanField(default=False)
    # The item compiled again from the same marks to replace this one (a rejected or stale item
    # stays as history; the annotator's list shows only what still needs them).
    replaced_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # Seconds the author spent on the item with the workspace focused and in use (see the workspace's
    # effort meter): what an item costs, shown per task on the effort page.
    active_seconds = models.FloatField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=["draft", "in_review", "in_adjudication", "approved", "rejected", "withdrawn"]),
                name="item_state_valid",
            ),
            models.CheckConstraint(condition=Q(revision__gte=1), name="item_revision_positive"),
            models.CheckConstraint(
                condition=Q(answer_format__in=["yes_no", "multiple_choice", "number", "timestamp"]),
                name="item_format_valid",
            ),
            models.CheckConstraint(condition=~Q(answer=""), name="item_answer_present"),
            models.CheckConstraint(condition=Q(active_seconds__gte=0), name="item_active_seconds_nonneg"),
        ]

    def __str__(self) -> str:
        return f"{self.uid} {self.task}"

    @property
    def uid(self) -> str:
        """The id an item keeps in releases and prediction files."""
        return self.uid_for(self.id)

    @staticmethod
    def uid_for(item_id: int) -> str:
        return f"skm-{item_id:06d}"
