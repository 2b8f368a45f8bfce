"""review.reviewing.modelview: what the blind step shows — the item's rendered model-view files when
it has them, else the scene's video (cut to the item's segment) and satellite image with shapes to
draw; lettered options go out as letters and geometry only, never which one is the key."""

from __future__ import annotations

import pytest

from review.reviewing.modelview import model_view_for
from tests.factories import ItemFactory, MarkFactory

pytestmark = pytest.mark.django_db

SQUARE = {"type": "Polygon", "coordinates": [[[0, 0], [5, 0], [5, 5], [0, 0]]]}


def test_without_files_the_scene_media_and_the_named_marks() -> None:
    mark = MarkFactory(label="pond")
    item = ItemFactory(scene=mark.scene, marks=[mark])
    item.provenance = {**item.provenance, "names": {str(mark.id): "pond"}, "segment_s": [0.5, 1.5]}
    view = model_view_for(item=item)
    image = mark.satellite_image
    assert (view.has_files, view.image_url, view.image_width) == (False, f"/media/satellite/{image.id}", image.width)
    assert view.video_src == f"/media/scenes/{item.scene_id}/video#t=0.5,1.5"
    assert view.shapes == [{"name": "pond", "geometry": mark.geometry}]


def test_lettered_candidates_are_drawn_as_letters_only() -> None:
    item = ItemFactory()
    item.provenance = {
        "candidates": [
            {"letter": "A", "source": "mark 3", "geometry": SQUARE, "iou_with_truth": 0.02},
            {"letter": "B", "source": "truth", "geometry": SQUARE, "iou_with_truth": 1.0},
        ]
    }
    shapes = model_view_for(item=item).shapes
    assert shapes == [{"name": "A", "geometry": SQUARE}, {"name": "B", "geometry": SQUARE}]


def test_a_rendered_model_view_is_shown_as_it_is() -> None:
    # an item whose model view job succeeded: the page shows its files and draws nothing itself
    from annotator.models import ModelView

    item = ItemFactory(options=["A", "B"])
    ModelView.objects.create(
        item=item,
        state=ModelView.State.SUCCEEDED,
        image="modelviews/view.jpg",
        option_images=[{"option": "A", "file": "modelviews/a.jpg"}, {"option": "B", "file": "modelviews/b.jpg"}],
    )
    item.refresh_from_db()
    view = model_view_for(item=item)
    assert (view.has_files, view.image_url, view.shapes) == (True, f"/media/items/{item.id}/view/view.jpg", [])
    assert view.option_images == [
        {"option": "A", "url": f"/media/items/{item.id}/view/option-A.jpg"},
        {"option": "B", "url": f"/media/items/{item.id}/view/option-B.jpg"},
    ]
    assert view.video_src == f"/media/items/{item.id}/view/video.mp4"
