"""Failed log-ins: after too many wrong passwords for one account, or from one address, in a
window, further attempts are refused for the rest of the window, even with the right password.

One owner for both doors (the login page and the token endpoint): `LockoutBackend` counts the
failures of every `authenticate()` call, and each door asks `locked_for()` first to tell the person
how long to wait. The counters live in the shared cache (Redis, or the file cache of the embedded
default), so every web process sees the same count.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

WINDOW_S = 15 * 60
MAX_PER_ACCOUNT = 10
# An address may mistype a few accounts, not try a dictionary against many.
MAX_PER_ADDRESS = 50


def _address(request: HttpRequest | None) -> str:
    # REMOTE_ADDR, not X-Forwarded-For: a client can write that header itself.
    return (request.META.get("REMOTE_ADDR") or "unknown") if request is not None else "unknown"


def _keys(username: str, request: HttpRequest | None) -> list[tuple[str, int]]:
    account = hashlib.sha256(username.strip().lower().encode()).hexdigest()[:32]
    return [(f"lockout:account:{account}", MAX_PER_ACCOUNT), (f"lockout:address:{_address(request)}", MAX_PER_ADDRESS)]


def locked_for(username: str, request: HttpRequest | None) -> int:
    """Seconds until attempts for this account from this address are taken again; 0 when they are."""
    now = time.time()
    waits = [
        int(entry["until"] - now) + 1
        for key, limit in _keys(username, request)
        if (entry := cache.get(key)) and entry["count"] >= limit and entry["until"] > now
    ]
    return max(waits, default=0)


def failure_record(username: str, request: HttpRequest | None) -> None:
    now = time.time()
    for key, _ in _keys(username, request):
        entry = cache.get(key)
        if not entry or entry["until"] <= now:
            entry = {"count": 0, "until": now + WINDOW_S}
        entry["count"] += 1
        cache.set(key, entry, timeout=int(entry["until"] - now) + 1)


def success_record(username: str, request: HttpRequest | None) -> None:
    cache.delete(_keys(username, request)[0][0])


def wait_message(seconds: int) -> str:
    minutes = max(1, round(seconds / 60))
    return f"Too many failed log-ins: try again in {minutes} minute{'s' if minutes != 1 else ''}."


class LockoutBackend(ModelBackend):
    """ModelBackend that refuses a locked account or address and counts every failure."""

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> Any:
        name = username or kwargs.get("email") or ""
        if locked_for(name, request):
            # PermissionDenied stops the backend chain: the right password does not get through.
            raise PermissionDenied(wait_message(locked_for(name, request)))
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            failure_record(name, request)
        else:
            success_record(name, request)
        return user

    def get_user(self, user_id: Any) -> Any:
        """The signed-in user of a session, with their roles: read with the session's row when a
        request's session is being authenticated, else in one query (annotator.hotpath)."""
        from annotator.access.sessions import NOT_READ, user_read_with_session
        from annotator.hotpath import user_with_roles  # the models are loaded once a request comes

        user = user_read_with_session(user_id)  # read with the session row (annotator.access.sessions)
        if user is NOT_READ:
            user = user_with_roles(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None
