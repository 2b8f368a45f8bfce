"""Media on S3 (annotator.s3storage, annotator.serving): a scene imported and processed into a bucket
of a real S3 server started for the tests, its files served only to people allowed to see them as
redirects to short-lived signed URLs that download the right bytes over HTTP, the objects private,
and the files gone from the bucket with the rows that name them."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from django.core.management import call_command
from django.utils import timezone

from annotator.compiling.modelview import model_views_drain, stored_names
from annotator.compiling.modelview.claims import new_claim, views_claim_pending, views_reclaim_lost
from annotator.compiling.modelview.render import _new_names, _render
from annotator.compiling.services import item_compile
from annotator.intake.services import SceneSpec, scene_import
from annotator.models import Item, Keyframe, MediaJob, ModelView, Scene
from annotator.processing.graph import STEPS
from tests.annotator.compiling.modelview.views import item_on, pending_views, textured_image
from tests.annotator.compiling.test_compile_each_task import CASES, Marks
from tests.factories import UserFactory, tiny_video
from tests.s3server import URL_EXPIRE_S, S3Bucket, fetch, s3_fixture, s3_server_fixture, storage_on  # noqa: F401

pytestmark = pytest.mark.django_db
IMAGE = "spacenet6_rotterdam_rgb8_1m_derived.tif"


@pytest.fixture
def scene(
    s3: S3Bucket,
    testdata: Path,
    admin: Any,
    annotator: Any,
    celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> Scene:
    """A scene imported into the bucket, every job run by the task queue (eagerly, as committed)."""
    spec = SceneSpec(
        name="rotterdam", video=tiny_video(), satellite=[testdata / "satellite" / IMAGE], annotators=["ann"]
    )
    with django_capture_on_commit_callbacks(execute=True):
        scene = scene_import(spec=spec, created_by=admin)
        call_command("process_scenes", str(scene.id), "--enqueue", stdout=None)
    return Scene.objects.select_related("video").get(id=scene.id)


def _signed(response: Any) -> str:
    """The signed URL a media view redirected to (and only that: no body to read a file from)."""
    assert response.status_code == 302, response.status_code
    url = response["Location"]
    query = parse_qs(urlparse(url).query)
    assert "X-Amz-Signature" in query and query["X-Amz-Expires"] == [str(URL_EXPIRE_S)], url
    return url


def _not_given(response: Any) -> None:
    """Refused: no redirect, and no URL of the bucket anywhere in the answer."""
    assert response.status_code in (401, 403, 404), response.status_code
    assert "Location" not in response
    assert "X-Amz" not in response.content.decode(errors="replace")


def test_a_processed_scene_lands_in_the_bucket_and_its_rows_name_what_is_there(scene: Scene, s3: S3Bucket) -> None:
    # then every job succeeded (the CVAA previews wait for a model)
    jobs = MediaJob.objects.filter(scene=scene) | MediaJob.objects.filter(satellite_image__scenes=scene)
    states = {j.kind: (j.state, j.error) for j in jobs.distinct()}
    assert {k: s for k, (s, _) in states.items()} == {**dict.fromkeys(STEPS, "succeeded"), "cvaa": "skipped"}, states
    # and the bucket holds exactly the files the rows name, listed by the server itself
    video, image = scene.video, scene.satellite_images.get()
    frames = list(Keyframe.objects.filter(video=video).values_list("image", flat=True))
    named = {video.file.name, video.poster.name, video.filmstrip_sprite.name, video.filmstrip_vtt.name, *frames}
    named |= {image.file.name, image.display.name}
    assert len(frames) >= 2 and all(named)
    tiles = s3.keys(f"{image.tiles_prefix}/")
    assert tiles and all(t.endswith((".png", ".jpg", ".xml")) for t in tiles)
    assert s3.keys() == named | tiles
    # and what is stored is what was imported
    assert s3.read(video.file.name) == tiny_video().read_bytes()


def test_the_assigned_annotator_gets_signed_urls_that_download_the_bytes(scene: Scene, s3: S3Bucket, api: Any) -> None:
    client = api(scene.assignments.get().annotator)
    video = scene.video
    data = s3.read(video.file.name)
    # the video: a signed URL that downloads it, and seeks in it (range requests)
    url = _signed(client.get(f"/media/scenes/{scene.id}/video"))
    assert fetch(url).content == data
    part = fetch(url, Range="bytes=100-199")
    assert part.status_code == 206 and part.content == data[100:200]
    assert part.headers["Content-Range"] == f"bytes 100-199/{len(data)}"
    # and a redirect to a URL that expires is not kept by the browser
    assert "no-store" in client.get(f"/media/scenes/{scene.id}/video")["Cache-Control"]
    # the poster, the filmstrip and a keyframe
    for path, name in [
        (f"/media/scenes/{scene.id}/poster.jpg", video.poster.name),
        (f"/media/scenes/{scene.id}/filmstrip.vtt", video.filmstrip_vtt.name),
        (f"/media/keyframes/{video.id}/{Keyframe.objects.filter(video=video).last().index}.jpg",  # type: ignore[union-attr]
         Keyframe.objects.filter(video=video).last().image.name),  # type: ignore[union-attr]
    ]:  # fmt: skip
        assert fetch(_signed(client.get(path))).content == s3.read(name), path


def test_tiles_and_the_original_image_are_served_signed(scene: Scene, s3: S3Bucket, api: Any) -> None:
    client = api(scene.assignments.get().annotator)
    image = scene.satellite_images.get()
    # a tile: its bytes, and a redirect the browser may keep (a tile never changes) but not past
    # half the signature's life, as the signed answer says too
    tile = sorted(k for k in s3.keys(f"{image.tiles_prefix}/") if re.search(r"/\d+-\d+-\d+\.\w+$", k))[0]
    response = client.get(f"/media/satellite/{image.id}/tiles/{tile.removeprefix(image.tiles_prefix + '/')}")
    got = fetch(_signed(response))
    assert got.content == s3.read(tile)
    keep = f"max-age={URL_EXPIRE_S // 2}"
    assert keep in response["Cache-Control"] and "private" in response["Cache-Control"]
    assert got.headers["Cache-Control"] == f"private, {keep}"
    # the display rendering, and the original as a download under the name it was imported as
    assert fetch(_signed(client.get(f"/media/satellite/{image.id}"))).content == s3.read(image.display.name)
    original = fetch(_signed(client.get(f"/media/satellite/{image.id}?original=1")))
    assert original.content == s3.read(image.file.name)
    assert original.headers["Content-Disposition"] == f'attachment; filename="{IMAGE}"'


def test_people_not_allowed_get_no_url_and_the_objects_are_private(
    scene: Scene, s3: S3Bucket, api: Any, other_annotator: Any, client: Any
) -> None:
    video, image = scene.video, scene.satellite_images.get()
    paths = [
        f"/media/scenes/{scene.id}/video",
        f"/media/scenes/{scene.id}/poster.jpg",
        f"/media/satellite/{image.id}",
        f"/media/keyframes/{video.id}/0.jpg",
    ]
    for path in paths:
        # an annotator of other scenes, an anonymous API client, a browser that is not logged in
        _not_given(api(other_annotator).get(path))
        _not_given(api().get(path))
        page = client.get(path, HTTP_ACCEPT="text/html")
        assert page.status_code in (401, 403, 404) or page["Location"].startswith("/accounts/login"), path
    # and the objects cannot be read without a signature, by anyone who learns their names
    for key in [video.file.name, image.file.name, video.poster.name]:
        assert fetch(s3.object_url(key)).status_code == 403, key


def test_signed_urls_name_the_public_endpoint_when_it_differs(
    scene: Scene, s3: S3Bucket, s3_server: Any, settings: Any, api: Any
) -> None:
    # given servers reaching the storage at 127.0.0.1 and browsers at localhost (as docker-compose's
    # app reaches http://minio:9000)
    public = s3_server.endpoint.replace("127.0.0.1", "localhost")
    settings.STORAGES = {**settings.STORAGES, "default": storage_on(s3_server, s3.name, public_endpoint_url=public)}
    # when the annotator asks for the video
    url = _signed(api(scene.assignments.get().annotator).get(f"/media/scenes/{scene.id}/video"))
    # then the URL is signed for the public endpoint, and works there
    assert url.startswith(f"{public}/{s3.name}/")
    assert fetch(url).content == s3.read(scene.video.file.name)


def test_deleting_a_scene_removes_its_objects(
    scene: Scene, s3: S3Bucket, client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    # given a processed scene in the bucket
    assert s3.keys()
    # when a superuser deletes it on the Django admin's delete page
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/django-admin/annotator/scene/{scene.id}/delete/", {"post": "yes"})
    # then its rows and every object are gone: video, keyframes, filmstrip, poster, and its image
    # with the rendering and the tiles (no other scene shows it)
    assert response.status_code == 302 and not Scene.objects.filter(id=scene.id).exists()
    assert s3.keys() == set()


def test_a_model_view_is_served_signed_and_goes_with_its_draft(
    s3: S3Bucket, annotator: Any, other_annotator: Any, api: Any,
    celery_eager: None, django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    # given a Scene Association draft compiled on S3 (its view renders on commit)
    marks, _ = CASES[Item.Task.SCENE_ASSOCIATION][0](Marks(annotator))
    with django_capture_on_commit_callbacks(execute=True):
        item = item_compile(user=annotator, task=Item.Task.SCENE_ASSOCIATION, mark_ids=[m.id for m in marks])
    view = ModelView.objects.get(item=item)
    assert view.state == "succeeded", view.error
    files = {view.image.name, view.video.name, *(o["file"] for o in view.option_images)}
    assert len(files) == 6 and files <= s3.keys("modelviews/")
    # then its author gets each file through a signed URL; another annotator gets no URL
    for name, key in [("view.jpg", view.image.name), ("video.mp4", view.video.name), ("option-A.jpg", None)]:
        url = _signed(api(annotator).get(f"/media/items/{item.id}/view/{name}"))
        assert fetch(url).content == s3.read(key or view.option_images[0]["file"])
        _not_given(api(other_annotator).get(f"/media/items/{item.id}/view/{name}"))
    # when the mark it was built from is deleted (the draft goes with it)
    with django_capture_on_commit_callbacks(execute=True):
        assert api(annotator).delete(f"/api/marks/{marks[0].id}/?version={marks[0].version}").status_code == 204
    # then the view's objects are gone from the bucket
    assert not Item.objects.filter(id=item.id).exists()
    assert s3.keys("modelviews/") == set()


def test_a_model_view_claimed_again_leaves_in_the_bucket_only_the_objects_its_row_names(
    s3: S3Bucket, annotator: Any, django_capture_on_commit_callbacks: Any
) -> None:
    # given views rendered into the bucket, queued again, and a run that stored their new pictures
    # and was killed before pointing the rows at them (its lease then ran out)
    views = pending_views(item_on(textured_image(160, 120), annotator), 2)
    ModelView.objects.exclude(id__in=[v.id for v in views]).delete()
    with django_capture_on_commit_callbacks(execute=True):
        assert model_views_drain() == (2, 0)
    ModelView.objects.update(state="pending")
    batch = views_claim_pending(claim=new_claim())
    left = {name for view in batch for name in _new_names(_render(view, lambda _: None))}
    assert left <= s3.keys("modelviews/")
    ModelView.objects.update(lease_until=timezone.now() - timedelta(seconds=1))
    # when another worker renders them again
    assert views_reclaim_lost() == 2
    with django_capture_on_commit_callbacks(execute=True):
        assert model_views_drain() == (2, 0)
    # then the bucket holds exactly the objects the rows name
    named = {name for view in ModelView.objects.all() for name in stored_names(view)}
    assert len(named) == 2 and s3.keys("modelviews/") == named
