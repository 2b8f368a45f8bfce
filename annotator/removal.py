"""Stored files go with the rows that name them, by whichever path deletes the rows (a scene deleted
in the admin, cascades), and only once the deletion commits: a deletion rolled back keeps its files.

A scene's video belongs to it alone and goes with it (its keyframes cascade); a satellite image can
be shared by several scenes and goes with the last of them."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from annotator.models import Keyframe, SatelliteImage, Scene, TelemetryTrack, Video
from annotator.storage import delete_quietly, delete_tree_quietly


def _files_go(names: list[str | None], tree: str = "") -> None:
    stored = [n for n in names if n]

    def remove() -> None:
        delete_quietly(stored)
        delete_tree_quietly(tree)

    transaction.on_commit(remove)


def video_files_delete(sender: Any, instance: Video, **kwargs: Any) -> None:
    fields = (instance.file, instance.proxy, instance.poster, instance.filmstrip_sprite, instance.filmstrip_vtt)
    _files_go([f.name for f in fields])


def keyframe_files_delete(sender: Any, instance: Keyframe, **kwargs: Any) -> None:
    _files_go([instance.image.name])


def telemetry_files_delete(sender: Any, instance: TelemetryTrack, **kwargs: Any) -> None:
    _files_go([instance.original.name])


def satellite_image_files_delete(sender: Any, instance: SatelliteImage, **kwargs: Any) -> None:
    _files_go([instance.file.name, instance.world_file.name, instance.display.name], instance.tiles_prefix)


def scene_images_remember(sender: Any, instance: Scene, **kwargs: Any) -> None:
    """pre_delete: the scene's images, which its deletion unlinks before post_delete can ask."""
    instance._image_ids = list(instance.satellite_images.values_list("id", flat=True))  # type: ignore[attr-defined]


def scene_media_delete(sender: Any, instance: Scene, **kwargs: Any) -> None:
    """post_delete: the scene's video, and its images that no other scene shows."""
    Video.objects.filter(id=instance.video_id).delete()
    image_ids = getattr(instance, "_image_ids", [])
    SatelliteImage.objects.filter(id__in=image_ids, scenes__isnull=True).delete()


def connect() -> None:
    from django.db.models.signals import post_delete, pre_delete

    post_delete.connect(video_files_delete, sender=Video, dispatch_uid="video-files")
    post_delete.connect(keyframe_files_delete, sender=Keyframe, dispatch_uid="keyframe-files")
    post_delete.connect(telemetry_files_delete, sender=TelemetryTrack, dispatch_uid="telemetry-files")
    post_delete.connect(satellite_image_files_delete, sender=SatelliteImage, dispatch_uid="satellite-image-files")
    pre_delete.connect(scene_images_remember, sender=Scene, dispatch_uid="scene-images")
    post_delete.connect(scene_media_delete, sender=Scene, dispatch_uid="scene-media")
