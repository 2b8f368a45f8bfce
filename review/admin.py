"""The Django admin for review: the policy and the rejection taxonomy are edited here; reviews,
adjudications, the audit log, releases and submissions are read here and never changed (the audit
log's and frozen releases' tables also refuse changes in the database, whoever asks). Releases are
made on the releases page."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from review.models import (
    Adjudication,
    GoldItem,
    ItemEvent,
    ItemRevision,
    RejectionReason,
    Release,
    ReleaseItem,
    Review,
    ReviewAssignment,
    ReviewPolicy,
    Submission,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Shown, never written: no add, no change, no delete, for every role (superusers too)."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ItemEvent)
class ItemEventAdmin(ReadOnlyAdmin):
    list_display = ["at", "item_id", "revision", "action", "from_state", "to_state", "actor", "reason"]
    list_filter = ["action", "to_state"]
    search_fields = ["item__id", "reason", "actor__username"]
    list_select_related = ["actor"]


@admin.register(Review)
class ReviewAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "item",
        "revision",
        "reviewer",
        "gold",
        "blind_answer",
        "blind_correct",
        "decision",
        "decided_at",
    ]
    list_filter = ["decision", "gold", "blind_correct"]
    list_select_related = ["item", "reviewer"]


@admin.register(Adjudication)
class AdjudicationAdmin(ReadOnlyAdmin):
    list_display = ["id", "item", "revision", "adjudicator", "decision", "reason", "created_at"]
    list_select_related = ["item", "adjudicator"]


@admin.register(ItemRevision)
class ItemRevisionAdmin(ReadOnlyAdmin):
    list_display = ["item", "number", "submitted_by", "submitted_at"]
    list_select_related = ["item", "submitted_by"]


@admin.register(ReviewAssignment)
class ReviewAssignmentAdmin(ReadOnlyAdmin):
    list_display = ["item", "revision", "reviewer", "gold", "created_at", "done_at"]
    list_filter = ["gold"]
    list_select_related = ["item", "reviewer"]


@admin.register(GoldItem)
class GoldItemAdmin(ReadOnlyAdmin):
    list_display = ["item", "marked_by", "marked_at"]


@admin.register(RejectionReason)
class RejectionReasonAdmin(admin.ModelAdmin):
    """Admins rename, describe, reorder, add and retire reasons. Deleting is not offered: old
    reviews name their reasons by code; retire one (active off) instead."""

    list_display = ["label", "code", "group", "active", "position"]
    list_editable = ["active", "position"]
    list_filter = ["group", "active"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return ["code"] if obj is not None else []  # reviews store the code

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ReviewPolicy)
class ReviewPolicyAdmin(admin.ModelAdmin):
    list_display = ["project", "reviewers_per_item", "admins_adjudicate", "gold_rate", "gold_min_accuracy"]
    readonly_fields = ["project", "updated_at", "updated_by"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # one row per project, made when the project's policy is first read

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: ReviewPolicy, form: Any, change: bool) -> None:
        obj.updated_by = request.user  # type: ignore[assignment]
        super().save_model(request, obj, form, change)


class ReleaseItemInline(admin.TabularInline):
    model = ReleaseItem
    fields = ("uid", "split", "in_tiny")
    readonly_fields = ("uid", "split", "in_tiny")
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Release)
class ReleaseAdmin(ReadOnlyAdmin):
    list_display = ["version", "state", "item_count", "created_by", "created_at", "frozen_at"]
    list_filter = ["state"]
    inlines = [ReleaseItemInline]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Only a failed build may go (its version can then be used again).
        allowed = admin.ModelAdmin.has_delete_permission(self, request, obj)
        return obj is not None and obj.state == Release.State.FAILED and allowed


@admin.register(Submission)
class SubmissionAdmin(ReadOnlyAdmin):
    list_display = ["name", "release", "overall", "submitted_by", "created_at"]
    list_filter = ["release"]
