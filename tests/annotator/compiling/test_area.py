"""annotator.compiling.area: the image's valid area as the distractor generators see it, drawn from
uniformly, and traced once from the file (then stored) for an image processed before the valid-area
job existed."""

from __future__ import annotations

import random
from io import BytesIO
from typing import Any

import numpy as np
import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from PIL import Image
from shapely.geometry import LineString, Point, Polygon, box

from annotator.compiling.area import BORDER_TOLERANCE_CELLS, ImageArea, Sampler, image_area
from annotator.compiling.errors import TemplateError
from annotator.compiling.services import item_compile
from annotator.models import Item, SatelliteImage
from tests.annotator.compiling.builders import candidate_shape
from tests.factories import MarkFactory, SatelliteImageFactory, SceneFactory

L_SHAPE = Polygon([(0, 0), (100, 0), (100, 40), (40, 40), (40, 100), (0, 100)])


def test_the_sampler_draws_uniformly_inside_a_concave_area() -> None:
    # given an L-shaped area (3,600 + 2,400 px2 in its two arms)
    draw = Sampler(L_SHAPE)
    rng = random.Random(1)
    points = [draw(rng) for _ in range(6000)]
    # then every point is inside, and each part gets its share of the draws
    assert all(p is not None and L_SHAPE.covers(Point(p)) for p in points)
    top = sum(1 for p in points if p and p[1] < 40) / len(points)
    assert top == pytest.approx(4000 / 6400, abs=0.02)
    # and an empty area draws nothing
    assert Sampler(Polygon())(rng) is None


def test_the_same_seed_draws_the_same_points() -> None:
    draw = Sampler(L_SHAPE)
    assert [draw(random.Random(5)) for _ in range(3)] == [draw(random.Random(5)) for _ in range(3)]


def test_covers_allows_the_stated_tolerance_and_never_leaves_the_image() -> None:
    area = ImageArea(200, 100, box(0, 0, 100, 100), tolerance_px=3.0)
    assert area.covers(box(10, 10, 102.5, 50))  # within the border's accuracy
    assert not area.covers(box(10, 10, 104, 50))
    assert not area.covers(LineString([(50, 50), (50, 101)]))  # out of the image: no tolerance there
    assert area.share == 0.5 and not area.is_whole
    assert area.provenance() == {"valid_area_share": 0.5, "valid_area_tolerance_px": 3.0}
    whole = ImageArea.whole(200, 100)
    assert whole.is_whole and whole.where() == "inside the image"
    assert area.where() == (
        "inside the part of the image that has data (50% of it; black or transparent borders are left out)"
    )


def test_the_inset_keeps_its_distance_from_a_reflex_corner() -> None:
    area = ImageArea(100, 100, L_SHAPE)
    inner = area.inset(10)
    assert inner.covers(Point(20, 20)) and not inner.covers(Point(45, 45))  # 7 px from the inner corner
    assert area.inset(0) is area.valid


# ---- built from a SatelliteImage ------------------------------------------------------------


def _half_black_png(width: int, height: int) -> bytes:
    """An RGB PNG with data on its left half, black on its right half."""
    pixels = np.zeros((height, width, 3), np.uint8)
    pixels[:, : width // 2] = (90, 120, 60)
    out = BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    return out.getvalue()


@pytest.mark.django_db
def test_an_image_without_a_stored_area_is_traced_once_then_read(django_assert_num_queries: Any) -> None:
    # given an image processed before the valid-area job existed: half black, no area stored
    image = SatelliteImageFactory(width=400, height=200, content=_half_black_png(400, 200))
    assert image.valid_area is None
    # when the compiler asks for its area
    area = image_area(image)
    # then it is traced from the file (the left half) and stored on the image
    assert area.share == pytest.approx(0.5, abs=0.01) and area.valid.covers(box(5, 5, 195, 195))
    assert area.tolerance_px == BORDER_TOLERANCE_CELLS * 1.0  # a 400 px image is traced at full size
    stored = SatelliteImage.objects.get(id=image.id).valid_area
    assert stored is not None and stored["type"] == "Polygon"
    # and the next compile reads it without touching the file (gone now) and without a query
    default_storage.delete(image.file.name)
    fresh = SatelliteImage.objects.get(id=image.id)
    with django_assert_num_queries(0):
        again = image_area(fresh)
    assert again.valid.equals(area.valid)


@pytest.mark.django_db
def test_a_row_read_before_another_compile_traced_it_reads_the_stored_area() -> None:
    image = SatelliteImageFactory(width=400, height=200, content=_half_black_png(400, 200))
    stale = SatelliteImage.objects.get(id=image.id)
    image_area(image)  # another compile traces and stores it
    default_storage.delete(image.file.name)
    assert image_area(stale).share == pytest.approx(0.5, abs=0.01)  # from the row, not the file


@pytest.mark.django_db
def test_an_unreadable_image_is_an_error_the_annotator_can_pass_on() -> None:
    image = SatelliteImageFactory()
    default_storage.delete(image.file.name)
    default_storage.save(image.file.name, ContentFile(b"no longer a picture"))
    with pytest.raises(TemplateError) as err:
        image_area(image)
    assert err.value.field == "satellite_image"
    assert str(err.value).startswith(image.file.name.rsplit("/", 1)[-1])
    assert str(err.value).endswith(
        "wrong options are placed where the image has data, so ask an admin to re-import the image"
    )
    assert SatelliteImage.objects.get(id=image.id).valid_area is None


# ---- through the compile service ------------------------------------------------------------

# Marks of each lettered task on the data (left) half of a 400 x 200 image.
LETTERED = {
    Item.Task.EVENT_GEOLOCALIZATION: [
        ("point", {"type": "Point", "coordinates": [60, 50]}, {"facts": {"event": "the car turns"}, "time_end": None})
    ],
    Item.Task.SCENE_ASSOCIATION: [
        ("polygon", {"type": "Polygon", "coordinates": [[[20, 20], [60, 20], [60, 60], [20, 60]]]}, {"time_end": 1.5})
    ],
    Item.Task.TRAJECTORY_MATCHING: [
        (
            "polyline",
            {"type": "LineString", "coordinates": [[20, 20], [90, 60], [150, 170]]},
            {"vertex_times": [0.0, 1.0, 2.0], "time_end": 2.0},
        ),
    ],
}


@pytest.mark.django_db
@pytest.mark.parametrize("task", sorted(LETTERED))
def test_compiling_on_an_image_processed_before_the_job_traces_it_and_keeps_options_on_data(
    annotator: Any, task: str
) -> None:
    # given a half-black image with no stored area (processed before the valid-area job existed)
    image = SatelliteImageFactory(width=400, height=200, content=_half_black_png(400, 200))
    scene = SceneFactory(satellite_images=[image], annotators=[annotator])
    marks = [
        MarkFactory(scene=scene, author=annotator, kind=kind, geometry=geometry, label="car", **{"facts": {}, **fields})
        for kind, geometry, fields in LETTERED[task]
    ]
    ids = [m.id for m in marks]
    # when items are compiled with many seeds
    items = [item_compile(user=annotator, task=task, mark_ids=ids, seed=seed) for seed in range(12)]
    # then the area was traced and stored, and each item records that its options were kept to it
    assert SatelliteImage.objects.get(id=image.id).valid_area is not None
    data = box(0, 0, 200, 200).buffer(BORDER_TOLERANCE_CELLS * 1.0 + 0.1)  # one mask cell is 1 px here
    for item in items:
        assert item.provenance["distractors"]["valid_area_share"] == pytest.approx(0.5, abs=0.01)
        wrong = [c for c in item.provenance["candidates"] if c["source"] != "truth"]
        assert len(wrong) == 3 and all(data.covers(candidate_shape(c["geometry"])) for c in wrong), item.provenance
    # and the same seed gives the same item
    again = item_compile(user=annotator, task=task, mark_ids=ids, seed=5)
    assert (again.question, again.answer, again.provenance["candidates"]) == (
        items[5].question, items[5].answer, items[5].provenance["candidates"]
    )  # fmt: skip
