"""annotator.removal on the media folder: a deleted scene takes its video's files and the images no
other scene shows; a shared image stays; a deletion rolled back keeps every file.
(The same on S3: tests/annotator/test_s3storage.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction

from annotator.models import SatelliteImage, Video
from tests.factories import KeyframeFactory, SatelliteImageFactory, SceneFactory, png_bytes

pytestmark = pytest.mark.django_db


def _scene_with_files(images: list[SatelliteImage]) -> Any:
    scene = SceneFactory(satellite_images=images)
    video = scene.video
    video.poster = default_storage.save(f"posters/v{video.id}.jpg", ContentFile(png_bytes(8, 8)))
    video.save(update_fields=["poster"])
    KeyframeFactory(video=video, index=0)
    return scene


def test_a_deleted_scene_takes_its_files_but_not_a_shared_image(
    media_files: Any, django_capture_on_commit_callbacks: Any
) -> None:
    # given two scenes sharing one image, the first also with an image of its own (with tiles)
    shared, own = SatelliteImageFactory(), SatelliteImageFactory()
    own.tiles_prefix = "tiles/i1/abcd"
    default_storage.save(f"{own.tiles_prefix}/TileGroup0/0-0-0.png", ContentFile(png_bytes(4, 4)))
    own.save(update_fields=["tiles_prefix"])
    first = _scene_with_files([shared, own])
    second = _scene_with_files([shared])
    kept = {second.video.file.name, second.video.poster.name, shared.file.name}
    kept |= {k.image.name for k in second.video.keyframes.all()}

    # when the first scene is deleted
    with django_capture_on_commit_callbacks(execute=True):
        first.delete()

    # then only the second scene's files and the shared image remain, and their rows
    assert media_files() == kept
    assert list(Video.objects.all()) == [second.video]
    assert list(SatelliteImage.objects.all()) == [shared]


def test_a_deletion_rolled_back_keeps_the_files(media_files: Any, django_capture_on_commit_callbacks: Any) -> None:
    scene = _scene_with_files([SatelliteImageFactory()])
    before = media_files()
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError), transaction.atomic():
        scene.delete()
        raise RuntimeError("the admin's request failed after the delete")
    assert media_files() == before and len(before) == 4
