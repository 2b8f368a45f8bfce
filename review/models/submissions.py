"""Model predictions scored against a frozen release (the leaderboard)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from .releases import Release


class Submission(models.Model):
    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="submissions")
    name = models.CharField(max_length=120)  # the model or run, as the leaderboard shows it
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    predictions = models.FileField(upload_to="submissions/", max_length=300)
    predictions_sha256 = models.CharField(max_length=64)
    # The score report: per task (score, se, chance, chance_adjusted, circular), dimensions,
    # overall and its SE, bias, and the counts of missing, unreadable, duplicate and unknown ids.
    report = models.JSONField()
    overall = models.FloatField()
    # How each answer was read and scored, one JSON object per line (stored beside the predictions).
    log = models.FileField(upload_to="submissions/", max_length=300)

    class Meta:
        ordering = ["-overall", "id"]
        constraints = [
            models.UniqueConstraint(fields=["release", "name"], name="submission_name_once_per_release"),
            models.CheckConstraint(condition=Q(overall__gte=0) & Q(overall__lte=1), name="submission_overall_range"),
        ]

    def __str__(self) -> str:
        return f"{self.name} on {self.release_id}"
