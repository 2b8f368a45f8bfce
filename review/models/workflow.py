"""Who reviews what: reviewer assignments (a reviewer's queue), the snapshot of each submitted
revision, and gold items."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotator.models import Item


class ReviewAssignment(models.Model):
    """One item revision in one reviewer's queue: the queue is these rows, nothing else."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="review_assignments")
    revision = models.PositiveIntegerField()
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="review_assignments")
    # A gold check mixed in unannounced (the reviewer's pages never show this flag).
    gold = models.BooleanField(default=False)
    # Set when an admin placed it by hand; empty when the balancer did.
    assigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # First time the reviewer opened the blind page (the fallback clock for the answer time).
    opened_at = models.DateTimeField(null=True, blank=True)
    # When the reviewer's decision was recorded: open assignments are the reviewer's load.
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["item", "revision", "reviewer"], name="assignment_once_per_reviewer"),
            models.CheckConstraint(condition=Q(revision__gte=1), name="assignment_revision_positive"),
        ]
        indexes = [
            # A reviewer's open work and their latest assignment: what the balancer reads per
            # reviewer at every submit (review/reviewing/assignment.py), never the whole table.
            models.Index(fields=["reviewer", "done_at"], name="assignment_reviewer_open"),
            models.Index(fields=["reviewer", "id"], name="assignment_reviewer_latest"),
        ]

    def __str__(self) -> str:
        return f"item {self.item_id} r{self.revision} -> user {self.reviewer_id}"


class ItemRevision(models.Model):
    """What the reviewers of one revision saw: the item as it was submitted. Recorded at every
    submit, so an item revised after a rejection keeps its earlier rounds readable."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    question = models.TextField()
    options = models.JSONField(default=list)
    answer = models.CharField(max_length=200)
    answer_format = models.CharField(max_length=16)
    provenance = models.JSONField(default=dict)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    submitted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item_id", "number"]
        constraints = [models.UniqueConstraint(fields=["item", "number"], name="item_revision_once")]

    def __str__(self) -> str:
        return f"item {self.item_id} revision {self.number}"


class GoldItem(models.Model):
    """An approved item whose key is trusted: it checks reviewers, unannounced."""

    item = models.OneToOneField(Item, on_delete=models.PROTECT, related_name="gold")
    marked_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    marked_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"gold item {self.item_id}"
