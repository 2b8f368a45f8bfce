"""Who is asking: Django's session and DRF's token authentication, with their own answers."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import MarkFactory

pytestmark = pytest.mark.django_db


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_a_token_authenticates_its_user(annotator) -> None:
    mark = MarkFactory(author=annotator)
    key = Token.objects.create(user=annotator).key
    response = _client(key).get(f"/api/marks/{mark.id}/")
    assert response.status_code == 200 and response.json()["id"] == mark.id


def test_the_token_endpoint_gives_a_token_for_a_password(annotator) -> None:
    annotator.set_password("a long demo password")
    annotator.save()
    login = {"username": annotator.username, "password": "a long demo password"}
    response = APIClient().post("/api/auth/token/", login)
    assert response.status_code == 200
    assert response.json()["token"] == Token.objects.get(user=annotator).key
    wrong = APIClient().post("/api/auth/token/", {"username": annotator.username, "password": "nope"})
    assert wrong.status_code == 400
    assert wrong.json()["non_field_errors"] == ["Unable to log in with provided credentials."]


@pytest.mark.parametrize("active, message", [(True, "Invalid token."), (False, "User inactive or deleted.")])
def test_a_bad_token_is_refused_with_drfs_message(annotator, active: bool, message: str) -> None:
    key = Token.objects.create(user=annotator).key
    annotator.is_active = active
    annotator.save()
    response = _client(key if not active else "0" * 40).get("/api/review/reasons/")
    # 403 rather than 401: session authentication comes first, and DRF answers with its header
    assert response.status_code == 403
    assert response.json()["detail"] == message


def test_a_session_finds_its_user(annotator) -> None:
    mark = MarkFactory(author=annotator)
    client = APIClient()
    client.force_login(annotator)
    response = client.get(f"/api/marks/{mark.id}/")
    assert response.status_code == 200 and response.json()["id"] == mark.id


def test_a_session_of_a_deactivated_or_deleted_user_is_anonymous(annotator, other_annotator) -> None:
    for user, end in ((annotator, "deactivate"), (other_annotator, "delete")):
        client = APIClient()
        client.force_login(user)
        if end == "deactivate":
            user.is_active = False
            user.save()
        else:
            user.delete()
        response = client.get("/api/review/reasons/")
        assert response.status_code == 403
        assert response.json()["detail"] == "Authentication credentials were not provided."
