"""Who is asking, in one written-out query per request.

Every autosave first finds its user: from a session (the workspace page) or a token (scripts).
Django compiles `User.objects.get(pk=...)` and DRF `Token.objects.select_related("user")` anew on
every request, and that took longer than a mark save's own reads and write together, so the same
statements are written out here. Everything else (password checks, permissions, session hash
verification, DRF's messages and `request.auth`) is Django's and DRF's own.
"""

from __future__ import annotations

import functools
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token


@functools.cache
def _user_by_id_sql() -> str:
    return f"SELECT * FROM {get_user_model()._meta.db_table} WHERE id = %s"  # noqa: S608 -- a model's name


class UserBackend(ModelBackend):
    """ModelBackend with the per-request user lookup of a session written out."""

    def get_user(self, user_id: Any) -> Any:
        model = get_user_model()
        try:
            pk = model._meta.pk.to_python(user_id)  # type: ignore[union-attr]  # the session keeps it as text
        except ValidationError:
            return None
        users = list(model.objects.raw(_user_by_id_sql(), [pk]))
        return users[0] if users and self.user_can_authenticate(users[0]) else None


@functools.cache
def _user_by_token_sql() -> str:
    user, token = get_user_model()._meta.db_table, Token._meta.db_table
    # Names come from the models, the key is a parameter.
    return f"SELECT u.* FROM {user} u JOIN {token} t ON t.user_id = u.id WHERE t.key = %s"  # noqa: S608


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        users = list(get_user_model().objects.raw(_user_by_token_sql(), [key]))
        if not users:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        user = users[0]
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return user, Token(key=key, user=user)
