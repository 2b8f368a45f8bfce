"""Signed-in sessions, with the user's id in a column of their own so that a request reads its session
and its user in one query (annotator.access.sessions). The data stay Django's: signed, and the
user's id inside them is what authenticates; the column only says which user row to join."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.sessions.base_session import AbstractBaseSession
from django.db import models


class Session(AbstractBaseSession):
    # No database constraint: a session saved as its user is deleted must not fail the request
    # (the join then finds no user: signed out). Deleting a user through the ORM deletes theirs.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        db_constraint=False,
        related_name="+",
    )

    class Meta(AbstractBaseSession.Meta):
        db_table = "skymark_session"

    @classmethod
    def get_session_store_class(cls) -> Any:
        from annotator.access.sessions import SessionStore

        return SessionStore
