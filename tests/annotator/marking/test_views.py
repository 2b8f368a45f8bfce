"""annotator.marking.views: the workspace page gives the map every satellite image of the scene."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from annotator.models import SatelliteImage
from tests.factories import SatelliteImageFactory, SceneFactory

pytestmark = pytest.mark.django_db


def _images(html: str) -> list[dict[str, Any]]:
    found = re.search(r'<script id="ws-images" type="application/json">(.*?)</script>', html, re.S)
    assert found, "the page carries the scene's images"
    return list(json.loads(found.group(1)))


def test_the_workspace_lists_every_image_with_what_the_switcher_says_and_opens_on_the_one_asked(annotator: Any) -> None:
    # given a scene with an RGB image georeferenced from its tags and a panchromatic one without
    browser = {"m_per_px": 1.0, "origin": [4.5, 51.9], "pixel_to_lonlat": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}
    rgb = SatelliteImageFactory(
        original_name="rgb.tif",
        width=300,
        height=300,
        georef={"browser": browser},
        georef_kind=SatelliteImage.GeorefKind.GEOTIFF,
        tiles_prefix="tiles/x",
        tile_size=256,
        tile_format="jpg",
    )
    pan = SatelliteImageFactory(original_name="pan.tif", width=600, height=600)
    scene = SceneFactory(satellite_images=[rgb, pan], annotators=[annotator])
    client = Client()
    client.force_login(annotator)

    # when the workspace opens
    page = client.get(f"/scenes/{scene.id}/workspace/").content.decode()

    # then both images are there, in id order, with their size, ground sample distance, georeference and tiles
    images = _images(page)
    assert [(i["id"], i["name"], i["width"], i["height"]) for i in images] == [
        (rgb.id, "rgb.tif", 300, 300),
        (pan.id, "pan.tif", 600, 600),
    ]
    assert (images[0]["gsd_m"], images[0]["georef_label"], images[0]["tiles"]["size"]) == (1.0, "GeoTIFF tags", 256)
    assert (images[1]["gsd_m"], images[1]["georef_label"], images[1]["tiles"]) == (None, "", None)
    assert images[1]["url"] == f"/media/satellite/{pan.id}"
    # and the switcher shows one button per image, the first one chosen
    assert page.count('data-testid="image-switcher"') == 1
    assert re.search(rf'class="btn small ws-image active"[^>]*data-image-id="{rgb.id}"', page)
    assert f'data-image-id="{rgb.id}">' in page
    assert "1.00 m/px · GeoTIFF tags" in page and "600×600 px · not georeferenced" in page
    # and ?image= opens on the image asked for; an image of another scene is ignored
    assert f'data-image-id="{pan.id}">' in client.get(f"/scenes/{scene.id}/workspace/?image={pan.id}").content.decode()
    stranger = SatelliteImageFactory()
    other = client.get(f"/scenes/{scene.id}/workspace/?image={stranger.id}").content.decode()
    assert f'data-image-id="{rgb.id}">' in other


def test_a_scene_with_one_image_has_no_switcher(annotator: Any) -> None:
    scene = SceneFactory(annotators=[annotator])
    client = Client()
    client.force_login(annotator)
    page = client.get(f"/scenes/{scene.id}/workspace/").content.decode()
    assert len(_images(page)) == 1
    assert 'id="image-switcher"' not in page
