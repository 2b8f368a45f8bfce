"""Reviews of QA items: a blind answer first, then a decision with reasons."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotator.models import Item


class Review(models.Model):
    class Decision(models.TextChoices):
        PENDING = "pending"
        APPROVE = "approve"
        REJECT = "reject"

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="reviews")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="reviews")
    # Given before the key is shown; also the human-baseline measurement.
    blind_answer = models.CharField(max_length=200)
    blind_correct = models.BooleanField()
    decision = models.CharField(max_length=16, choices=Decision.choices, default=Decision.PENDING)
    reasons = models.JSONField(default=list, blank=True)
    comment = models.TextField(blank=True)
    # Marks a comment is anchored on (ids); optional.
    anchor_mark = models.ForeignKey(
        "annotator.Mark", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["item", "reviewer"], name="review_one_per_reviewer"),
            models.CheckConstraint(
                condition=Q(decision__in=["pending", "approve", "reject"]), name="review_decision_valid"
            ),
            models.CheckConstraint(condition=~Q(blind_answer=""), name="review_blind_answer_present"),
        ]

    def __str__(self) -> str:
        return f"review of item {self.item_id} by user {self.reviewer_id}: {self.decision}"
