"""Sessions in the database, each read with the user it names in one query.

`SessionStore` (SESSION_ENGINE) keeps Django's signed session data in `annotator.models.Session`,
whose row also holds the signed-in user's id, and reads the row joined with that user and their
roles (annotator.hotpath.session). `SessionUserMiddleware` (in place of Django's
AuthenticationMiddleware) hands that user to the authentication backend while Django's own
`auth.get_user` runs, so everything Django checks still holds: the id inside the signed data is the
one asked for, the backend refuses an inactive account, and the session's password hash must match.

Why not the cache: with a database server a request then made two round trips before its handler
(the session from Redis, the user from the database); see annotator/hotpath/session.py. A session
ended in one process is gone for every process at once, and Redis going down no longer touches
sign-in.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.contrib import auth
from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.sessions.backends.db import SessionStore as DBStore
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils import timezone
from django.utils.functional import SimpleLazyObject

# Imported here, not on a first request: a web process loads this module (SESSION_ENGINE) before it
# forks (config/gunicorn.py), and the models are ready by then.
from annotator.hotpath.session import session_with_user

# The session store whose user `auth.get_user` is looking up now (set only around that call).
_asking: contextvars.ContextVar[SessionStore | None] = contextvars.ContextVar("skymark_session_asking", default=None)
NOT_READ = object()


class SessionStore(DBStore):
    def __init__(self, session_key: str | None = None) -> None:
        super().__init__(session_key)
        self._user_read: tuple[Any, Any] | None = None  # (the row's user id, that user or None)

    @classmethod
    def get_model_class(cls) -> Any:
        from annotator.models import Session

        return Session

    def load(self) -> dict[str, Any]:
        found = session_with_user(str(self.session_key), timezone.now())
        if found is None:
            self._session_key = None  # as Django's store: a missing or expired session starts anew
            self._user_read = None
            return {}
        data, user_id, user = found
        self._user_read = (user_id, user)
        return self.decode(data)

    def create_model_instance(self, data: dict[str, Any]) -> Any:
        row: Any = super().create_model_instance(data)
        try:
            row.user_id = get_user_model()._meta.pk.to_python(data.get(SESSION_KEY))  # type: ignore[union-attr]
        except ValidationError:
            row.user_id = None
        return row

    def user_read(self, user_id: Any) -> Any:
        """The user read with this session when it is the one with `user_id` (None: the row named
        that id and there is no such user), else NOT_READ."""
        if self._user_read is None or self._user_read[0] is None or self._user_read[0] != user_id:
            return NOT_READ
        return self._user_read[1]


def user_read_with_session(user_id: Any) -> Any:
    """For the authentication backend: the user with this id as the session being authenticated
    read it, or NOT_READ (no session is being authenticated, or it named another id)."""
    store = _asking.get()
    return store.user_read(user_id) if store is not None else NOT_READ


@contextmanager
def _authenticating(session: Any) -> Iterator[None]:
    token = _asking.set(session if isinstance(session, SessionStore) else None)
    try:
        yield
    finally:
        _asking.reset(token)


def _user(request: HttpRequest) -> Any:
    if not hasattr(request, "_cached_user"):
        with _authenticating(request.session):
            request._cached_user = auth.get_user(request)  # type: ignore[attr-defined]
    return request._cached_user  # type: ignore[attr-defined]


class SessionUserMiddleware(AuthenticationMiddleware):
    """Django's AuthenticationMiddleware, with the user taken from the session's own query."""

    def process_request(self, request: HttpRequest) -> None:
        super().process_request(request)
        request.user = SimpleLazyObject(lambda: _user(request))  # type: ignore[assignment]
