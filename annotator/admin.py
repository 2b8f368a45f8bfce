from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from annotator.models import Assignment, Item, Keyframe, Mark, MediaJob, SatelliteImage, Scene, Video

admin.site.register([Video, SatelliteImage, Keyframe, Assignment, Mark])


@admin.register(Scene)
class SceneAdmin(admin.ModelAdmin):
    list_display = ["name", "video", "created_at"]


@admin.register(MediaJob)
class MediaJobAdmin(admin.ModelAdmin):
    list_display = ["scene", "kind", "state", "progress", "attempts", "error"]
    list_filter = ["state", "kind"]


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    """Items change state only through the item lifecycle (annotator/compiling/lifecycle.py), and
    their keys and provenance only by compiling again: the admin shows them read-only."""

    list_display = ["id", "task", "scene", "author", "state", "stale"]
    list_filter = ["task", "state", "stale"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
