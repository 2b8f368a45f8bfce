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


# ---- telemetry preview and the upload page's JSON answers ------------------------------------------


def test_a_csv_track_previews_its_rows_and_guessed_columns_and_stores_nothing(
    admin: Any, api: Any, testdata: Any, media_files: Any
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    body = (testdata / "brighton_beach" / "frames.csv").read_bytes()
    answer = api(admin).post(
        "/api/scenes/telemetry-preview/", {"telemetry": SimpleUploadedFile("log.csv", body)}, format="multipart"
    )
    assert answer.status_code == 200, answer.content
    data = answer.json()
    assert data["header"][0] == "clip_time_s" and len(data["rows"]) == 5
    assert data["columns"]["height_m"] == "rel_alt_m" and "alt_m" not in data["columns"]
    assert [f["name"] for f in data["fields"] if f["required"]] == ["time_s", "lat", "lon"]
    assert media_files() == set()


@pytest.mark.parametrize(
    ("name", "body", "message"),
    [
        ("flight.srt", b"1\n00:00:00,000 --> 00:00:01,000\n", "flight.srt: columns can be named for a CSV track only"),
        ("log.csv", b"\n", "log.csv: the CSV is empty"),
        ("log.csv", b"\xff\xfe\x00bad", "log.csv: not a readable CSV"),
    ],
)
def test_a_track_that_cannot_be_previewed_is_a_field_error(
    admin: Any, api: Any, name: str, body: bytes, message: str
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    answer = api(admin).post(
        "/api/scenes/telemetry-preview/", {"telemetry": SimpleUploadedFile(name, body)}, format="multipart"
    )
    assert answer.status_code == 400
    assert answer.json()["telemetry"][0].startswith(message)


def test_only_admins_preview_tracks(annotator: Any, api: Any) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("log.csv", b"time_s,lat,lon\n0,1,2\n")
    assert api(annotator).post("/api/scenes/telemetry-preview/", {"telemetry": upload}).status_code == 403


def test_the_upload_page_answers_its_script_in_json(admin: Any, client: Any, media_files: Any) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.factories import tiny_video

    # given an admin's session / when the page's script posts a form whose columns do not fit the track
    client.force_login(admin)
    form = {
        "name": "log",
        "video": SimpleUploadedFile("clip.mp4", tiny_video().read_bytes()),
        "use_keyframe": "on",
        "telemetry": SimpleUploadedFile("log.csv", b"time_s,lat,lon\n0,57.4,12.0\n"),
        "telemetry_columns": '{"height_m": "rel_alt"}',
    }
    answer = client.post("/scenes/upload/", form, HTTP_ACCEPT="application/json")

    # then the refusal is JSON on the field, and nothing was stored
    assert answer.status_code == 400
    [error] = answer.json()["errors"]["telemetry_columns"]
    assert "no column 'rel_alt' for height above take-off" in error["message"]
    assert media_files() == set()

    # when sent right / then the answer names the new scene's page
    form["video"] = SimpleUploadedFile("clip.mp4", tiny_video().read_bytes())
    form["telemetry"] = SimpleUploadedFile("log.csv", b"time_s,lat,lon,h\n0,57.4,12.0,30\n")
    form["telemetry_columns"] = '{"height_m": "h"}'
    answer = client.post("/scenes/upload/", form, HTTP_ACCEPT="application/json")
    assert answer.status_code == 201, answer.content
    assert answer.json()["redirect"].startswith("/scenes/")
