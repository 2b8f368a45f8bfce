"""A small release built as an admin builds one (factories, then release_build), with what each
consumer library trips on: an item with a rendered model view and option images, scenes without
one (items sharing the scene's picture), a georeferenced scene whose marks include an ellipse, a
region stored with an open ring, a point and timed trajectories (one with two vertices at the
same instant), a question that a spreadsheet would run as a formula, and a second scene so that
train is not empty."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from annotator.models import Item, Mark, ModelView
from media_tools.geo import georef_from_corners
from review.models import Release
from review.releasing.services import release_build
from tests.factories import (
    ItemFactory,
    MarkFactory,
    SatelliteImageFactory,
    SceneFactory,
    VideoFactory,
    one_pixel_video,
    png_bytes,
)

GEOREF = georef_from_corners(
    {"tl": (57.4850, 12.0080), "tr": (57.4850, 12.0110), "br": (57.4838, 12.0110), "bl": (57.4838, 12.0080)},
    width=200,
    height=100,
).to_dict()
SECTORS = ["north", "east", "south", "west"]
FORMULA_QUESTION = '=HYPERLINK("http://example.com","Which way does the bus leave?")'
VIEW_SIZE, OPTION_SIZE = (40, 20), (10, 10)


def _model_view(item: Item, letters: str) -> None:
    image = default_storage.save(f"modelviews/{item.id}-view.png", ContentFile(png_bytes(*VIEW_SIZE, item.id)))
    options = [
        {
            "option": letter,
            "file": default_storage.save(
                f"modelviews/{item.id}-{letter}.png", ContentFile(png_bytes(*OPTION_SIZE, 100 + k))
            ),
        }
        for k, letter in enumerate(letters)
    ]
    ModelView.objects.create(item=item, state=ModelView.State.SUCCEEDED, image=image, option_images=options)


@pytest.fixture
def built_release(annotator, admin) -> Release:  # type: ignore[no-untyped-def]
    image = SatelliteImageFactory(georef=GEOREF)
    saro = SceneFactory(name="Saro roundabout", satellite_images=[image], annotators=[annotator])
    on_saro = {"scene": saro, "author": annotator, "satellite_image": image}
    ellipse = MarkFactory(
        kind=Mark.Kind.ELLIPSE,
        geometry={"type": "Ellipse", "center": [100, 50], "radii": [20, 10], "rotation": 30},
        **on_saro,
    )
    # stored open, as the API kept rings before it closed them; the export closes it
    region = MarkFactory(
        geometry={"type": "Polygon", "coordinates": [[[10, 10], [60, 10], [60, 40], [10, 40]]]}, **on_saro
    )
    point = MarkFactory(kind=Mark.Kind.POINT, geometry={"type": "Point", "coordinates": [150, 20]}, **on_saro)
    track = MarkFactory(
        kind=Mark.Kind.POLYLINE,
        geometry={"type": "LineString", "coordinates": [[10, 10], [50, 20], [90, 60]]},
        vertex_times=[0.0, 0.5, 1.5],
        label="bus",
        **on_saro,
    )
    stop = MarkFactory(
        kind=Mark.Kind.POLYLINE,
        geometry={"type": "LineString", "coordinates": [[20, 80], [30, 80], [40, 70], [60, 70]]},
        vertex_times=[0.25, 0.25, 1.0, 1.9996],
        label="car",
        **on_saro,
    )
    approved = {"state": Item.State.APPROVED, "author": annotator}
    ItemFactory(marks=[ellipse, region], answer="yes", scene=saro, **approved)
    direction = ItemFactory(
        marks=[track, point],
        task=Item.Task.RELATIVE_DIRECTION,
        question=FORMULA_QUESTION,
        options=SECTORS,
        answer="south",
        answer_format=Item.AnswerFormat.MULTIPLE_CHOICE,
        scene=saro,
        **approved,
    )
    _model_view(direction, "ABCD")
    ItemFactory(
        marks=[stop, region],
        task=Item.Task.ZONE_COUNTING,
        options=[],
        answer="3",
        answer_format=Item.AnswerFormat.NUMBER,
        scene=saro,
        **approved,
    )
    # its own clip: scenes sharing a video are one split group and could not land on both sides
    clip = VideoFactory(source=one_pixel_video(), duration_s=1.0, fps=5.0, frame_count=5, width=1, height=1)
    kraklanda = SceneFactory(name="Kraklanda", video=clip, annotators=[annotator])
    ItemFactory(scene=kraklanda, answer="no", **approved)
    ItemFactory(scene=kraklanda, answer="yes", options=["yes", "-1 @home"], **approved)
    # every item released (balancing yes/no would hold some back; the formats are the point here)
    return release_build(version="1.0", user=admin, balance_yes_no=False)


def release_root(release: Release) -> Path:
    return Path(default_storage.path(release.root))


def release_records(release: Release) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (release_root(release) / "items.jsonl").read_text().splitlines()]
