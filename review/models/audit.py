"""The audit log: one row per item transition, append-only. The database refuses UPDATE and
DELETE on it (migration 0004's triggers), the admin shows it read-only, and no service writes it
except review.audit.recorder, which the item lifecycle's signal calls."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotator.models import Item


class ItemEvent(models.Model):
    # No database foreign key and no cascade: the log outlives what it records (a discarded
    # draft's events stay), and deleting an item must never reach here.
    item = models.ForeignKey(Item, on_delete=models.DO_NOTHING, db_constraint=False, related_name="audit_events")
    revision = models.PositiveIntegerField()
    action = models.CharField(max_length=32)
    # "" for "not there" (before creation, after a discarded draft).
    from_state = models.CharField(max_length=16, blank=True)
    to_state = models.CharField(max_length=16, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="item_events"
    )
    reason = models.TextField(blank=True)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["item", "id"], name="item_event_item")]

    def __str__(self) -> str:
        return f"item {self.item_id}: {self.from_state or '-'} -> {self.to_state or '-'} ({self.action})"
