"""The API's JSON limits (annotator/parsers.py): too large -> 413, too deep, non-finite or past
64 bits -> 400, each with a sentence, and nothing written."""

from __future__ import annotations

import json
from typing import Any

import pytest

from annotator.models import Mark
from tests.factories import SceneFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def post(annotator: Any, api: Any) -> Any:
    scene = SceneFactory(annotators=[annotator])
    image = scene.satellite_images.get()
    client = api(annotator)

    def send(raw: str) -> Any:
        return client.generic("POST", f"/api/scenes/{scene.id}/marks/", raw, content_type="application/json")

    send.body = lambda **extra: json.dumps(  # type: ignore[attr-defined]
        {"satellite_image": image.id, "kind": "point", "label": "car", "time_start": 0.5, **extra}
    )
    return send


def test_a_plain_mark_still_posts(post: Any) -> None:
    response = post(post.body(geometry={"type": "Point", "coordinates": [20, 30]}))
    assert response.status_code == 201, response.content


def test_a_body_past_the_limit_is_413_before_it_is_read(post: Any, settings: Any) -> None:
    settings.SKYMARK_MAX_JSON_BYTES = 1000
    response = post(post.body(geometry={"type": "Point", "coordinates": [20, 30]}, description="x" * 2000))
    assert response.status_code == 413
    assert "at most 1000 bytes" in response.json()["detail"]
    assert not Mark.objects.exists()


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("[" * 5000 + "]" * 5000, "nested deeper than 32"),
        ('{"a":' * 40 + "1" + "}" * 40, "nested deeper than 32"),
        ('{"geometry": {"type": "Point", "coordinates": [NaN, 1]}}', "NaN is not a number"),
        ('{"geometry": {"type": "Point", "coordinates": [1e999, 1]}}', "out of range"),
        ('{"satellite_image": 9223372036854775808}', "out of range for a 64-bit integer"),
    ],
)
def test_hostile_json_is_400_with_a_sentence(post: Any, raw: str, says: str) -> None:
    response = post(raw)
    assert response.status_code == 400
    assert says in response.json()["detail"]
    assert not Mark.objects.exists()
