"""Requests larger than the largest upload are refused from their Content-Length, before reading."""

from __future__ import annotations

from typing import Any

import pytest

from annotator.models import Scene
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db


def test_an_api_upload_past_max_upload_mb_is_413_json(admin: Any, api: Any, settings: Any) -> None:
    settings.SKYMARK_MAX_UPLOAD_BYTES = 2 * 2**20
    body = b"x" * (3 * 2**20)

    response = api(admin).generic("POST", "/api/scenes/", body, content_type="multipart/form-data; boundary=x")

    assert response.status_code == 413
    assert response.json()["detail"] == "the request is 3 MB; uploads are limited to 2 MB"
    assert not Scene.objects.exists()


def test_a_page_upload_past_the_limit_is_413_text(admin_client: Any, settings: Any) -> None:
    settings.SKYMARK_MAX_UPLOAD_BYTES = 2**20
    response = admin_client.generic(
        "POST", "/scenes/upload/", b"x" * (2 * 2**20), content_type="multipart/form-data; boundary=x"
    )
    assert response.status_code == 413
    assert "uploads are limited to 1 MB" in response.content.decode()


def test_a_request_under_the_limit_goes_through(admin: Any, api: Any) -> None:
    assert api(admin).get("/api/scenes/").status_code == 200


@pytest.mark.django_db
def test_an_id_past_64_bits_in_the_path_is_not_found(client) -> None:  # type: ignore[no-untyped-def]
    # Given a logged-in admin; when a path names an id no 64-bit column can hold
    client.force_login(AdminFactory())
    api = client.get(f"/api/items/{2**63}/")
    page = client.get(f"/items/{2**64}/record/")
    # then both are "no such object", not a database error
    assert (api.status_code, api.json()) == (404, {"detail": "No such object."})
    assert page.status_code == 404
