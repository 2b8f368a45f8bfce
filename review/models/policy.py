"""The review policy (one row) and the rejection taxonomy admins edit."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotator.models import Project


class ReviewPolicy(models.Model):
    """How a project's items are reviewed: one row per project (made when first asked for)."""

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="review_policy")
    reviewers_per_item = models.PositiveSmallIntegerField(default=2)
    # Adjudicators are the `adjudicator` group; this lets admins adjudicate as well.
    admins_adjudicate = models.BooleanField(default=True)
    # Share of a reviewer's queue that is gold checks (0 turns them off).
    gold_rate = models.FloatField(default=0.1)
    # A reviewer is flagged below this accuracy on gold, once they answered this many gold items.
    gold_min_accuracy = models.FloatField(default=0.8)
    gold_min_answers = models.PositiveSmallIntegerField(default=5)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        verbose_name_plural = "review policies"
        constraints = [
            models.CheckConstraint(
                condition=Q(reviewers_per_item__gte=1) & Q(reviewers_per_item__lte=5), name="review_policy_reviewers"
            ),
            # at most half the queue: gold checks must not crowd out the work
            models.CheckConstraint(
                condition=Q(gold_rate__gte=0) & Q(gold_rate__lte=0.5), name="review_policy_gold_rate"
            ),
            models.CheckConstraint(
                condition=Q(gold_min_accuracy__gte=0) & Q(gold_min_accuracy__lte=1), name="review_policy_gold_accuracy"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.reviewers_per_item} reviewers per item, gold {self.gold_rate:.0%}"


class RejectionReason(models.Model):
    class Group(models.TextChoices):
        ITEM = "item", "Item construction"
        CRITERION = "criterion", "Expert criterion (VLRS-Bench)"

    code = models.SlugField(max_length=40, unique=True)
    label = models.CharField(max_length=120)
    description = models.TextField(blank=True)
    group = models.CharField(max_length=16, choices=Group.choices, default=Group.ITEM)
    # Retired reasons stay for the reviews that used them; reviewers pick from active ones only.
    active = models.BooleanField(default=True)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        constraints = [models.CheckConstraint(condition=Q(group__in=["item", "criterion"]), name="reason_group_valid")]

    def __str__(self) -> str:
        return self.label
