"""Frozen, versioned releases of approved items."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotator.models import Item


class Release(models.Model):
    version = models.CharField(max_length=32, unique=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    items = models.ManyToManyField(Item, related_name="releases")
    # {"files": [{"path", "sha256", "bytes"}], "items": n, "tasks": {...}}
    manifest = models.JSONField(default=dict)
    # Storage names of the frozen files.
    items_file = models.CharField(max_length=300)
    manifest_file = models.CharField(max_length=300)
    item_count = models.PositiveIntegerField()

    class Meta:
        ordering = ["-id"]
        constraints = [models.CheckConstraint(condition=~Q(version=""), name="release_version_present")]

    def __str__(self) -> str:
        return self.version
