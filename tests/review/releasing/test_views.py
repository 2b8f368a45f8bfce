"""review.releasing.views: the datasheet as a page with its figures, and downloads that a token
client fetches (401/403/404 for it, never a login redirect)."""

from __future__ import annotations

import base64
import io
import re
import zipfile

import pytest
from PIL import Image
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotator.models import Item
from review.releasing.services import release_build
from tests.factories import ItemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def release(annotator, admin):  # type: ignore[no-untyped-def]
    for answer in ("yes", "no"):
        ItemFactory(state=Item.State.APPROVED, author=annotator, answer=answer)
    return release_build(version="1.0", user=admin)


def _figures(page: str) -> list[Image.Image]:
    sources = re.findall(r'<img src="([^"]+)"', page)
    assert sources and all(s.startswith("data:image/png;base64,") for s in sources)
    return [Image.open(io.BytesIO(base64.b64decode(s.split(",", 1)[1]))) for s in sources]


def test_the_datasheet_is_a_page_whose_figures_are_inside_it(release, admin, client) -> None:
    client.force_login(admin)
    response = client.get("/releases/1.0/datasheet/")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    assert "attachment" not in response.get("Content-Disposition", "")
    page = b"".join(response.streaming_content).decode()
    figures = _figures(page)
    assert all(f.format == "PNG" and f.size[0] > 100 for f in figures)
    # the releases page links to it
    assert 'href="/releases/1.0/datasheet/"' in client.get("/releases/").content.decode()
    # and the copy in the zip is the same self-contained page
    archive = zipfile.ZipFile(io.BytesIO(b"".join(client.get("/releases/1.0.zip").streaming_content)))
    assert archive.read("skymark-1.0/datasheet/index.html").decode() == page


def _token_client(user) -> APIClient:  # type: ignore[no-untyped-def]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def test_a_token_client_downloads_the_zip(release, admin) -> None:
    response = _token_client(admin).get("/releases/1.0.zip")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))).namelist()
    assert "skymark-1.0/manifest.json" in names and "skymark-1.0/datasheet/index.html" in names
    single = _token_client(admin).get("/releases/1.0/items.jsonl")
    assert single.status_code == 200 and len(b"".join(single.streaming_content).splitlines()) == 2


def test_api_clients_get_401_403_404_not_a_redirect(release, annotator) -> None:
    anonymous = APIClient().get("/releases/1.0.zip")
    assert anonymous.status_code == 401 and anonymous["WWW-Authenticate"] == "Token"
    wrong = APIClient()
    wrong.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    assert wrong.get("/releases/1.0.zip").status_code == 401
    assert _token_client(annotator).get("/releases/1.0.zip").status_code == 403
    assert _token_client(release.created_by).get("/releases/9.9.zip").status_code == 404
    assert _token_client(release.created_by).get("/releases/1.0/nope.txt").status_code == 404


def test_a_browser_that_is_not_logged_in_goes_to_the_login_page(release, client) -> None:
    response = client.get("/releases/1.0.zip", HTTP_ACCEPT="text/html,application/xhtml+xml")
    assert response.status_code == 302 and response["Location"].startswith("/login")
