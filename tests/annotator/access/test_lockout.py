"""Failed log-ins lock the account (and a guessing address) for the rest of a window, at both
doors: the login page and the token endpoint. The right password does not get through meanwhile."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotator.access import lockout
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
PASSWORD = "a long demo password"


@pytest.fixture
def person() -> Any:
    user = UserFactory(username="dana")
    user.set_password(PASSWORD)
    user.save()
    return user


def _token(username: str, password: str, addr: str = "10.0.0.1") -> Any:
    return APIClient(REMOTE_ADDR=addr).post("/api/auth/token/", {"username": username, "password": password})


def test_the_token_endpoint_locks_after_too_many_wrong_passwords(person: Any) -> None:
    # Given as many wrong passwords as an account may have
    answers = [_token("dana", f"guess {i}").status_code for i in range(lockout.MAX_PER_ACCOUNT)]
    assert answers == [400] * lockout.MAX_PER_ACCOUNT

    # When the right one comes next / then it is refused with how long to wait
    locked = _token("dana", PASSWORD)
    assert locked.status_code == 429
    assert locked.json()["detail"].startswith("Too many failed log-ins: try again in 15 minutes")
    assert 0 < int(locked["Retry-After"]) <= lockout.WINDOW_S + 1


def test_one_attempt_short_of_the_limit_the_right_password_works_and_resets(person: Any) -> None:
    for i in range(lockout.MAX_PER_ACCOUNT - 1):
        _token("dana", f"guess {i}")
    assert _token("dana", PASSWORD).status_code == 200
    # the count starts again after a success
    for i in range(lockout.MAX_PER_ACCOUNT - 1):
        _token("dana", f"guess {i}")
    assert _token("dana", PASSWORD).status_code == 200


def test_the_login_page_says_the_account_is_locked_even_for_the_right_password(person: Any) -> None:
    page = Client(REMOTE_ADDR="10.0.0.2")
    for i in range(lockout.MAX_PER_ACCOUNT):
        page.post("/login/", {"username": "Dana", "password": f"guess {i}"})  # names are case-folded

    response = page.post("/login/", {"username": "dana", "password": PASSWORD})

    assert response.status_code == 200  # the form again, not a redirect into the site
    assert "Too many failed log-ins" in response.content.decode()
    assert "_auth_user_id" not in page.session


def test_a_lock_is_per_account_and_an_address_guessing_many_accounts_is_locked_too(person: Any) -> None:
    other = UserFactory(username="eli")
    other.set_password(PASSWORD)
    other.save()
    for i in range(lockout.MAX_PER_ACCOUNT):
        _token("dana", f"guess {i}", addr="10.0.0.3")
    # another account from another address is untouched
    assert _token("eli", PASSWORD, addr="10.0.0.4").status_code == 200
    # one address trying many accounts is stopped at the address limit
    for i in range(lockout.MAX_PER_ADDRESS):
        _token(f"user{i}", "guess", addr="10.0.0.5")
    assert _token("eli", PASSWORD, addr="10.0.0.5").status_code == 429
    assert _token("eli", PASSWORD, addr="10.0.0.6").status_code == 200


def test_the_window_ends(person: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(lockout.MAX_PER_ACCOUNT):
        _token("dana", f"guess {i}")
    assert _token("dana", PASSWORD).status_code == 429
    now = lockout.time.time()
    monkeypatch.setattr(lockout.time, "time", lambda: now + lockout.WINDOW_S + 2)
    assert _token("dana", PASSWORD).status_code == 200
