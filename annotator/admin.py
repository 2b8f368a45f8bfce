from django.contrib import admin

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
    list_display = ["id", "task", "scene", "author", "state"]
    list_filter = ["task", "state"]
