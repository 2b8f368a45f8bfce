"""The model view: what each task draws (and never draws), the job that renders and stores it,
and who may fetch its files."""

from __future__ import annotations

import math
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.files.storage import default_storage
from PIL import Image

from annotator.compiling.lifecycle import item_submit
from annotator.compiling.modelview import model_view_draw, model_view_render, relettered, view_plan
from annotator.compiling.services import item_compile
from annotator.models import Item, ModelView, SatelliteImage
from annotator.processing.valid_area import satellite_image_valid_area_update
from media_tools.imagery import candidates_box
from media_tools.imagery.modelview import CANDIDATE_MARGIN, CANDIDATE_MARGIN_PX, bounds
from tests.annotator.compiling.test_compile_each_task import CASES, Marks
from tests.factories import MarkFactory, SatelliteImageFactory, SceneFactory
from tests.media_tools.test_probe import probed

pytestmark = pytest.mark.django_db
T = Item.Task


def _compiled(annotator: Any, task: str, capture: Any, *, georef: dict | None = None) -> Item:
    """Compile the task's case; the model view job runs when the transaction commits."""
    marks, _ = CASES[task][0](Marks(annotator, georef=georef))
    with capture(execute=True):
        item = item_compile(user=annotator, task=task, mark_ids=[m.id for m in marks], seed=3)
    return Item.objects.select_related("model_view").get(id=item.id)


@pytest.mark.parametrize(
    ("task", "drawn"),
    [
        (T.TARGET_VISIBILITY, ["pier"]),
        (T.ZONE_COUNTING, ["parking lot"]),  # the counted cars would give the count away
        (T.RELATIVE_DIRECTION, ["roundabout"]),  # the car's position is the answer
        (T.REGION_INTERACTION, ["park"]),  # so is the cyclist's path
        (T.SPATIOTEMPORAL_ORDERING, ["bridge", "tower", "lake"]),
        (T.SCENE_ASSOCIATION, ["A", "B", "C", "D"]),  # the true region only as one of the letters
        (T.EVENT_GEOLOCALIZATION, ["A", "B", "C", "D"]),
        (T.TRAJECTORY_MATCHING, ["A", "B", "C", "D"]),
    ],
)
def test_each_task_draws_what_its_question_names_and_nothing_that_gives_the_key_away(
    annotator: Any, task: str, drawn: list[str]
) -> None:
    # given an item of the task
    marks, _ = CASES[task][0](Marks(annotator))
    item = item_compile(user=annotator, task=task, mark_ids=[m.id for m in marks], seed=3)
    # when its model view is planned
    plan = view_plan(item.provenance)
    # then exactly the named marks and the lettered candidates are drawn, under the question's names
    assert sorted(s.name for s in plan.shapes) == sorted(drawn)
    lettered = "candidates" in item.provenance
    assert [o for o, _, _ in plan.options] == (item.options if lettered else [])
    assert plan.image_id == marks[0].satellite_image_id


def test_the_segment_is_the_interval_the_item_is_about(annotator: Any) -> None:
    marks, _ = CASES[T.SCENE_ASSOCIATION][0](Marks(annotator))
    item = item_compile(user=annotator, task=T.SCENE_ASSOCIATION, mark_ids=[m.id for m in marks])
    assert view_plan(item.provenance).segment == (0.5, 1.5)
    marks, _ = CASES[T.TARGET_VISIBILITY][0](Marks(annotator))
    item = item_compile(user=annotator, task=T.TARGET_VISIBILITY, mark_ids=[m.id for m in marks])
    assert view_plan(item.provenance).segment is None


def test_compiling_queues_the_view_and_the_job_stores_image_options_and_segment(
    annotator: Any, celery_eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    # given a Scene Association item compiled (the job runs on commit)
    item = _compiled(annotator, T.SCENE_ASSOCIATION, django_capture_on_commit_callbacks)
    view = item.model_view
    # then the view is rendered: the candidates' part of the image, one image per option of that
    # same part, the 0.5-1.5 s segment
    assert (view.state, view.progress, view.error) == ("succeeded", 100, "")
    left, top, right, bottom = _candidates_cut(item)
    assert [o["option"] for o in view.option_images] == ["A", "B", "C", "D"]
    for name in [view.image.name, *(o["file"] for o in view.option_images)]:
        with default_storage.open(name) as fh, Image.open(fh) as im:
            assert im.size == (right - left, bottom - top)
    assert (view.segment_start_s, view.segment_end_s) == (0.5, 1.5)
    assert probed(Path(default_storage.path(view.video.name))).frame_count == 10
    # and rendering again changes nothing (the job is idempotent)
    assert model_view_render(view_id=view.id) is False


def _candidates_cut(item: Item) -> tuple[int, int, int, int]:
    geometries = [c["geometry"] for c in item.provenance["candidates"]]
    return candidates_box(geometries, item.scene.satellite_images.get().width, item.scene.satellite_images.get().height)


def _half_black_image(width: int, height: int) -> SatelliteImage:
    """Data (a mid green) on the left half, black on the right half: the valid_area job's outline."""
    pixels = np.zeros((height, width, 3), np.uint8)
    pixels[:, : width // 2] = (90, 120, 60)
    out = BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    image = SatelliteImageFactory(width=width, height=height, content=out.getvalue())
    satellite_image_valid_area_update(image_id=image.id)
    image.refresh_from_db()
    return image


@pytest.mark.parametrize("task", [T.TRAJECTORY_MATCHING, T.EVENT_GEOLOCALIZATION])
def test_option_images_are_the_candidates_with_a_margin_on_the_image_data(
    annotator: Any, celery_eager: None, django_capture_on_commit_callbacks: Any, task: str
) -> None:
    # given a lettered item on a 600 x 300 image whose right half is black, its key in the data
    image = _half_black_image(600, 300)
    scene = SceneFactory(satellite_images=[image], annotators=[annotator])
    if task == T.TRAJECTORY_MATCHING:
        geometry = {"type": "LineString", "coordinates": [[60, 60], [150, 120], [200, 230]]}
        fields: dict[str, Any] = {"kind": "polyline", "vertex_times": [0.0, 1.0, 2.0], "time_end": 2.0}
    else:
        geometry = {"type": "Point", "coordinates": [120, 150]}
        fields = {"kind": "point", "facts": {"event": "the car turns"}, "time_end": None}
    mark = MarkFactory(scene=scene, author=annotator, geometry=geometry, label="car", **{"facts": {}, **fields})
    with django_capture_on_commit_callbacks(execute=True):
        item = item_compile(user=annotator, task=task, mark_ids=[mark.id], seed=2)
    view = ModelView.objects.get(item=item)
    assert view.state == "succeeded", view.error
    # then the sheet and every option image are the candidates' bounding box with its margin ...
    xs, ys = [], []
    for c in item.provenance["candidates"]:
        x0, y0, x1, y1 = bounds(c["geometry"])
        xs += [x0, x1]
        ys += [y0, y1]
    margin = max(CANDIDATE_MARGIN * max(max(xs) - min(xs), max(ys) - min(ys)), CANDIDATE_MARGIN_PX)
    left, top = max(0, math.ceil(min(xs) - margin)), max(0, math.ceil(min(ys) - margin))
    right, bottom = min(300, math.floor(max(xs) + margin)), min(300, math.floor(max(ys) + margin))
    assert right - left < 600 / 2 + 1 and bottom - top < 300 + 1
    for name in [view.image.name, *(o["file"] for o in view.option_images)]:
        with default_storage.open(name) as fh, Image.open(fh) as im:
            assert im.size == (right - left, bottom - top), name
            pixels = np.asarray(im.convert("RGB")).astype(int)
        # ... on the image's data only: no column of black border (the data's columns are green)
        column_medians = np.median(pixels.max(axis=2), axis=0)
        assert column_medians.min() > 60, name
    # and every candidate lies in it, the black half left out (the data ends at x = 300)
    assert max(xs) <= right <= 300 and min(xs) >= left


def test_the_drawing_function_reletters_candidates_in_any_order_with_the_same_cut(
    annotator: Any, tmp_path: Path
) -> None:
    # given a Trajectory Matching item
    marks, _ = CASES[T.TRAJECTORY_MATCHING][0](Marks(annotator))
    item = item_compile(user=annotator, task=T.TRAJECTORY_MATCHING, mark_ids=[m.id for m in marks], seed=3)
    image = marks[0].satellite_image
    # when it is drawn in its own order and with the candidates reversed
    first, second = tmp_path / "own", tmp_path / "reversed"
    first.mkdir()
    second.mkdir()
    view, options = model_view_draw(provenance=item.provenance, image=image, out=first)
    again, moved = model_view_draw(provenance=item.provenance, image=image, out=second, order=[3, 2, 1, 0])
    # then both have the same letters and size, and option A of the second is option D of the first
    assert [o for o, _ in options] == [o for o, _ in moved] == ["A", "B", "C", "D"]
    sizes = {Image.open(p).size for p in [view, again, *(p for _, p in options), *(p for _, p in moved)]}
    assert len(sizes) == 1
    relettered_plan = view_plan(relettered(item.provenance, [3, 2, 1, 0]))
    plan = view_plan(item.provenance)
    assert relettered_plan.options[0][1].geometry == plan.options[3][1].geometry
    assert relettered_plan.options[0][0] == "A"
    with pytest.raises(ValueError):
        relettered(item.provenance, [0, 0, 1, 2])


def test_an_item_about_the_whole_video_stores_no_copy_of_it(
    annotator: Any, celery_eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    item = _compiled(annotator, T.TARGET_VISIBILITY, django_capture_on_commit_callbacks)
    view = item.model_view
    assert view.state == "succeeded" and not view.video and view.segment_start_s is None
    assert view.option_images == []


def test_an_unreadable_image_fails_the_view_with_its_name_and_stores_nothing(
    annotator: Any, celery_eager: None, django_capture_on_commit_callbacks: Any, media_files: Any
) -> None:
    # given an item whose satellite image file was damaged after it was drawn on
    marks, _ = CASES[T.TARGET_VISIBILITY][0](Marks(annotator))
    image = marks[0].satellite_image
    with default_storage.open(image.file.name, "wb") as fh:
        fh.write(b"no longer a picture")
    before = media_files()
    # when it is compiled
    with django_capture_on_commit_callbacks(execute=True):
        item = item_compile(user=annotator, task=T.TARGET_VISIBILITY, mark_ids=[marks[0].id])
    # then the view failed, naming the file, and no file was left behind
    view = ModelView.objects.get(item=item)
    assert view.state == "failed" and view.error.startswith(image.file.name.rsplit("/", 1)[-1])
    assert "cannot be read as an image" in view.error
    assert media_files() == before


def test_model_view_files_are_served_to_whoever_may_see_the_item(
    annotator: Any, other_annotator: Any, reviewer: Any, admin: Any, api: Any,
    celery_eager: None, django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    # given a rendered Event Geo-localization item
    item = _compiled(annotator, T.EVENT_GEOLOCALIZATION, django_capture_on_commit_callbacks)
    body = api(annotator).get(f"/api/items/{item.id}/").json()
    urls = body["model_view"]
    assert urls["state"] == "succeeded" and urls["segment_s"] is None
    assert [o["option"] for o in urls["options"]] == item.options
    # then its author and admins get the image, the options and the video
    for user in (annotator, admin):
        client = api(user)
        response = client.get(urls["image_url"])
        assert response.status_code == 200 and response["Content-Type"] == "image/jpeg"
        assert client.get(urls["options"][0]["image_url"]).status_code == 200
        assert client.get(urls["video_url"]).status_code == 200
    # others do not know it exists; a reviewer sees it once it is submitted
    assert api(other_annotator).get(urls["image_url"]).status_code == 404
    assert api(reviewer).get(urls["image_url"]).status_code == 404
    item_submit(item=item, actor=annotator)
    assert api(reviewer).get(urls["image_url"]).status_code == 200
    assert api(admin).get(f"/media/items/{item.id}/view/option-Z.jpg").status_code == 404


def test_an_item_without_a_rendered_view_has_no_urls(annotator: Any, api: Any) -> None:
    marks, _ = CASES[T.TARGET_VISIBILITY][0](Marks(annotator))
    item = item_compile(user=annotator, task=T.TARGET_VISIBILITY, mark_ids=[marks[0].id])
    body = api(annotator).get(f"/api/items/{item.id}/").json()
    assert body["model_view"]["state"] == "pending" and body["model_view"]["image_url"] is None
    assert api(annotator).get(f"/media/items/{item.id}/view/view.jpg").status_code == 404


def test_the_reviewer_answers_from_the_model_view(
    annotator: Any, reviewer: Any, client: Any, celery_eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    # given a rendered Scene Association item in review
    item = _compiled(annotator, T.SCENE_ASSOCIATION, django_capture_on_commit_callbacks)
    item_submit(item=item, actor=annotator)
    # when a reviewer opens it / then the page shows the drawn image, each option and the segment
    client.force_login(reviewer)
    page = client.get(f"/review/items/{item.id}/").content.decode()
    assert f'src="/media/items/{item.id}/view/view.jpg"' in page
    assert all(f"/media/items/{item.id}/view/option-{o}.jpg" in page for o in "ABCD")
    assert f'src="/media/items/{item.id}/view/video.mp4"' in page  # the cut segment


def test_a_failed_view_renders_again_once_the_image_is_fixed(
    annotator: Any, admin_client: Any, celery_eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    # given a view that failed on a damaged image
    marks, _ = CASES[T.TARGET_VISIBILITY][0](Marks(annotator))
    image = marks[0].satellite_image
    good = default_storage.open(image.file.name, "rb").read()
    with default_storage.open(image.file.name, "wb") as fh:
        fh.write(b"no longer a picture")
    with django_capture_on_commit_callbacks(execute=True):
        item = item_compile(user=annotator, task=T.TARGET_VISIBILITY, mark_ids=[marks[0].id])
    view = ModelView.objects.get(item=item)
    assert view.state == "failed"
    # when the image is put right and an admin renders the view again
    with default_storage.open(image.file.name, "wb") as fh:
        fh.write(good)
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            "/django-admin/annotator/modelview/", {"action": "render_again", "_selected_action": [view.id]}
        )
    # then it is drawn
    assert response.status_code == 302
    view.refresh_from_db()
    assert (view.state, view.error, view.attempts) == ("succeeded", "", 2)
