"""annotator.intake.apis: the pixel <-> WGS84 converter answers a field error, not a 500, for
positions no image has."""

from __future__ import annotations

from typing import Any

import pytest

from media_tools.geo import georef_from_corners
from tests.factories import SceneFactory

pytestmark = pytest.mark.django_db
CORNERS = {
    "tl": [57.48434, 12.01107],
    "tr": [57.48333, 12.00869],
    "br": [57.48435, 12.00738],
    "bl": [57.48537, 12.00976],
}


@pytest.fixture
def image_url(annotator: Any) -> str:
    scene = SceneFactory(annotators=[annotator])
    image = scene.satellite_images.get()
    ref = georef_from_corners(CORNERS, width=image.width, height=image.height)
    image.georef = ref.to_dict()
    image.save(update_fields=["georef"])
    return f"/api/satellite/{image.id}/convert/"


def test_a_pixel_converts_to_lat_lon(annotator: Any, api: Any, image_url: str) -> None:
    answer = api(annotator).get(image_url, {"x": 0, "y": 0})
    assert answer.status_code == 200
    assert answer.json()["lat"] == pytest.approx(57.48434, abs=1e-6)


@pytest.mark.parametrize("x", ["1e308", "-1e308", "nan", "inf", "true"])
def test_positions_no_image_has_are_a_field_error(annotator: Any, api: Any, image_url: str, x: str) -> None:
    answer = api(annotator).get(image_url, {"x": x, "y": 5})
    assert answer.status_code == 400
    assert "x" in answer.json()
