"""Versioned releases of approved items. Once a release is frozen, its row, its item rows and the
items it froze refuse UPDATE and DELETE in the database itself (triggers, migration 0002), not only
in the interface: a correction is a new version with a changelog."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotator.models import Item, Project, project_default_id


class Release(models.Model):
    class State(models.TextChoices):
        BUILDING = "building"
        FROZEN = "frozen"
        FAILED = "failed"

    version = models.CharField(max_length=32, unique=True)
    # A release freezes the approved items of one project.
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="releases", default=project_default_id)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    state = models.CharField(max_length=16, choices=State.choices, default=State.BUILDING)
    progress = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True)
    # What was asked for: {"tasks": [...], "scenes": [...], "approved_after": iso, "approved_before": iso}
    filters = models.JSONField(default=dict, blank=True)
    # The version this one corrects, and what changed since it (ids added, removed, changed).
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    changelog = models.JSONField(default=dict, blank=True)
    # What the build copies and reads besides the items, captured when the items were frozen:
    # {"media": {path: storage name}, "georefs": {...}, "human": [...], "scenes": [...]}
    sources = models.JSONField(default=dict, blank=True)
    items = models.ManyToManyField(Item, through="ReleaseItem", related_name="releases")
    # {"files": [{"path", "sha256", "bytes"}], "items": n, "tasks": {...}, "splits": {...}}
    manifest = models.JSONField(default=dict)
    # Storage names: the folder every file of the release sits in, and two files people ask for most.
    root = models.CharField(max_length=300, blank=True)
    items_file = models.CharField(max_length=300, blank=True)
    manifest_file = models.CharField(max_length=300, blank=True)
    item_count = models.PositiveIntegerField(default=0)
    frozen_at = models.DateTimeField(null=True, blank=True)
    # While building: the time until which a worker holds the build (renewed while it runs); a
    # build whose lease ran out lost its worker and may be retried or abandoned (jobs.py).
    lease_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=~Q(version=""), name="release_version_present"),
            models.CheckConstraint(condition=Q(state__in=["building", "frozen", "failed"]), name="release_state_valid"),
            models.CheckConstraint(
                condition=~Q(state="frozen") | (Q(frozen_at__isnull=False) & ~Q(items_file="")),
                name="release_frozen_complete",
            ),
        ]

    def __str__(self) -> str:
        return self.version


class ReleaseItem(models.Model):
    """One item as a release froze it: the record a model is given (question, options, key, media
    paths, provenance) and the splits it belongs to."""

    class Split(models.TextChoices):
        TRAIN = "train"
        TEST = "test"

    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="entries")
    item = models.ForeignKey(Item, on_delete=models.PROTECT, related_name="release_entries")
    uid = models.CharField(max_length=32)
    split = models.CharField(max_length=8, choices=Split.choices)
    in_tiny = models.BooleanField(default=False)
    record = models.JSONField()

    class Meta:
        ordering = ["release_id", "uid"]
        constraints = [
            models.UniqueConstraint(fields=["release", "item"], name="release_item_once"),
            models.UniqueConstraint(fields=["release", "uid"], name="release_uid_once"),
            models.CheckConstraint(condition=Q(split__in=["train", "test"]), name="release_item_split_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.uid} in {self.release_id}"
