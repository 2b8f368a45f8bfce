"""Reviews of QA items: a blind answer first, then a decision with reasons; and the adjudicator's
final word where reviews did not settle an item."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotator.models import Item


class Decision(models.TextChoices):
    PENDING = "pending"
    APPROVE = "approve"
    REJECT = "reject"


class Review(models.Model):
    Decision = Decision

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="reviews")
    # The item's revision this review judged; earlier rounds stay with their own number.
    revision = models.PositiveIntegerField(default=1)
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="reviews")
    # A check on an approved gold item, mixed into the queue unannounced: it measures the reviewer
    # and never moves the item.
    gold = models.BooleanField(default=False)
    # Given before the key is shown; also the human-baseline measurement.
    blind_answer = models.CharField(max_length=200)
    # The benchmark's own score of the blind answer against the key (1 = full marks: accuracy,
    # MRA for counts, ACC@1s for times); correct means full marks.
    blind_score = models.FloatField(default=0.0)
    blind_correct = models.BooleanField()
    # Seconds from the page showing the model view to the blind answer, and from the key to the
    # decision (the page measures; the server's clock fills in when it cannot).
    answer_seconds = models.FloatField(null=True, blank=True)
    decision_seconds = models.FloatField(null=True, blank=True)
    decision = models.CharField(max_length=16, choices=Decision.choices, default=Decision.PENDING)
    # Codes of review.RejectionReason (the taxonomy admins edit).
    reasons = models.JSONField(default=list, blank=True)
    comment = models.TextField(blank=True)
    # Where the comment points: a mark of the item and/or a time in the video (seconds).
    anchor_mark = models.ForeignKey(
        "annotator.Mark", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    anchor_time_s = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["item", "revision", "reviewer"], name="review_one_per_reviewer"),
            models.CheckConstraint(
                condition=Q(decision__in=["pending", "approve", "reject"]), name="review_decision_valid"
            ),
            models.CheckConstraint(condition=~Q(blind_answer=""), name="review_blind_answer_present"),
            models.CheckConstraint(
                condition=Q(decision="pending", decided_at__isnull=True)
                | (~Q(decision="pending") & Q(decided_at__isnull=False)),
                name="review_decided_when",
            ),
            models.CheckConstraint(condition=Q(blind_score__gte=0) & Q(blind_score__lte=1), name="review_score_unit"),
            models.CheckConstraint(
                condition=Q(anchor_time_s__isnull=True) | Q(anchor_time_s__gte=0), name="review_anchor_time_nonneg"
            ),
            models.CheckConstraint(condition=Q(revision__gte=1), name="review_revision_positive"),
        ]

    def __str__(self) -> str:
        return f"review of item {self.item_id} r{self.revision} by user {self.reviewer_id}: {self.decision}"


class Adjudication(models.Model):
    """The final decision on one revision of an item the reviews did not settle."""

    Decision = Decision

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="adjudications")
    revision = models.PositiveIntegerField()
    adjudicator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="adjudications")
    decision = models.CharField(max_length=16, choices=Decision.choices)
    # Why, in words (required); plus taxonomy codes when it rejects, shown to the author.
    reason = models.TextField()
    reasons = models.JSONField(default=list, blank=True)
    anchor_mark = models.ForeignKey(
        "annotator.Mark", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    anchor_time_s = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["item", "revision"], name="adjudication_once_per_revision"),
            models.CheckConstraint(condition=Q(decision__in=["approve", "reject"]), name="adjudication_decision_valid"),
            models.CheckConstraint(condition=~Q(reason=""), name="adjudication_reason_present"),
            models.CheckConstraint(
                condition=Q(anchor_time_s__isnull=True) | Q(anchor_time_s__gte=0),
                name="adjudication_anchor_time_nonneg",
            ),
        ]

    def __str__(self) -> str:
        return f"adjudication of item {self.item_id} r{self.revision}: {self.decision}"
