"""Admin views of review records. Releases and their items are frozen records: the admin shows them
and never edits them (the database refuses it as well); releases are made on the releases page."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from review.models import Release, ReleaseItem, Review, Submission

admin.site.register([Review])


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


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
        return obj is not None and obj.state == Release.State.FAILED and super().has_delete_permission(request, obj)


@admin.register(Submission)
class SubmissionAdmin(ReadOnlyAdmin):
    list_display = ["name", "release", "overall", "submitted_by", "created_at"]
    list_filter = ["release"]
