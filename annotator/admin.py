from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from annotator.compiling.modelview_queue import model_view_retry
from annotator.compiling.phrasings import phrasing_check
from annotator.models import (
    Assignment,
    CvaaCheckpoint,
    CvaaTraining,
    Item,
    Keyframe,
    Mark,
    MediaJob,
    ModelView,
    Phrasing,
    SatelliteImage,
    Scene,
    Video,
)
from annotator.processing.cvaa.services import checkpoint_make_active

admin.site.register([Video, SatelliteImage, Keyframe, Assignment])


def _in_review_or_beyond(items: QuerySet[Item]) -> bool:
    return items.exclude(state=Item.State.DRAFT).exists()


class _ViewOnlyAdmin(admin.ModelAdmin):
    """Rows that change only through their services (versions, locks, the lifecycle): the admin
    lists and shows them, and deletes what each subclass allows."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Mark)
class MarkAdmin(_ViewOnlyAdmin):
    """Marks change only through the marking services, which bump the version, stale the items
    built on them and respect locks; the admin shows them read-only and deletes only marks that no
    item in review, approved or released uses."""

    list_display = ["id", "scene", "kind", "label", "author", "version", "locked"]
    list_filter = ["kind", "locked"]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is None:
            return super().has_delete_permission(request)
        return not obj.locked and not _in_review_or_beyond(obj.items.all())


@admin.register(Scene)
class SceneAdmin(admin.ModelAdmin):
    list_display = ["name", "video", "created_at"]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Deleting a scene deletes its marks and items: not once any of them is reviewed or released.
        if obj is None:
            return super().has_delete_permission(request)
        return not _in_review_or_beyond(obj.items.all())


@admin.register(MediaJob)
class MediaJobAdmin(admin.ModelAdmin):
    list_display = ["scene", "kind", "state", "progress", "attempts", "error"]
    list_filter = ["state", "kind"]


@admin.register(Item)
class ItemAdmin(_ViewOnlyAdmin):
    """Items change state only through the item lifecycle (annotator/compiling/lifecycle.py), and
    their keys and provenance only by compiling again: the admin shows them read-only."""

    list_display = ["id", "task", "scene", "author", "state", "stale", "active_seconds"]
    list_filter = ["task", "state", "stale"]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Reviewed, approved and released items are the benchmark's record; only drafts may go.
        if obj is None:
            return super().has_delete_permission(request)
        return obj.state == Item.State.DRAFT


@admin.register(ModelView)
class ModelViewAdmin(admin.ModelAdmin):
    list_display = ["item", "state", "progress", "video_note", "error"]
    list_filter = ["state"]
    readonly_fields = ["item", "image", "video", "option_images", "segment_start_s", "segment_end_s", "attempts"]
    actions = ["render_again"]

    @admin.action(description="Render the selected failed model views again")
    def render_again(self, request: HttpRequest, queryset: QuerySet[ModelView]) -> None:
        queued = sum(model_view_retry(view_id=view.id) for view in queryset)
        self.message_user(request, f"{queued} model view(s) queued; views that had not failed were left as they are.")


class PhrasingForm(forms.ModelForm):
    class Meta:
        model = Phrasing
        fields = ["task", "polarity", "text", "enabled"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not self.instance.builtin and data.get("task") and data.get("polarity") and data.get("text"):
            phrasing_check(task=data["task"], polarity=data["polarity"], text=data["text"])
        return data


@admin.register(Phrasing)
class PhrasingAdmin(admin.ModelAdmin):
    """Admins add phrasings and disable any; built-in ones (from the templates) keep their text."""

    form = PhrasingForm
    list_display = ["text", "task", "polarity", "enabled", "builtin"]
    list_editable = ["enabled"]
    list_filter = ["task", "polarity", "enabled", "builtin"]
    search_fields = ["text"]

    def get_readonly_fields(self, request: HttpRequest, obj: Phrasing | None = None) -> list[str]:
        return ["task", "polarity", "text", "builtin"] if obj is not None and obj.builtin else ["builtin"]

    def has_delete_permission(self, request: HttpRequest, obj: Phrasing | None = None) -> bool:
        # Items record the phrasing they used; built-in ones are disabled, never deleted.
        return super().has_delete_permission(request, obj) and not (obj is not None and obj.builtin)


@admin.register(CvaaCheckpoint)
class CvaaCheckpointAdmin(admin.ModelAdmin):
    """Read-only here: uploads go through POST /api/cvaa/checkpoints/, which verifies the file first."""

    list_display = ["id", "original_name", "origin", "active", "sha256", "created_at"]
    readonly_fields = [f.name for f in CvaaCheckpoint._meta.fields]
    actions = ["make_active"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Make active (every scene's previews are recomputed)")
    def make_active(self, request: HttpRequest, queryset: QuerySet[CvaaCheckpoint]) -> None:
        if queryset.count() != 1:
            self.message_user(request, "choose exactly one checkpoint", level="error")
            return
        checkpoint_make_active(checkpoint_id=queryset.get().id)


@admin.register(CvaaTraining)
class CvaaTrainingAdmin(admin.ModelAdmin):
    list_display = ["id", "state", "steps", "progress", "detail", "error", "created_at"]
    list_filter = ["state"]
