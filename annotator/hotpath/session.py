"""A request's session row and the user it names, with their roles, in one query: every request
with a session cookie asks this (annotator.access.sessions). As the ORM:
`Session.objects.get(session_key=key, expire_date__gt=now)`, then `hotpath.user_with_roles(row.user_id)`.

Why: before, the session came from the cache (a Redis GET on PostgreSQL deployments) and the user
from the database, two round trips before every handler; under the 8-client units on PostgreSQL
(`bench/scale.py --backend postgres --profile`) they were 27 % of the request threads' samples
(the GET 12 %, the user 11 %). Joined, the session costs the user's query a primary-key lookup more.
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connections, router

from annotator.hotpath import _q, user_columns_and_roles, user_from_rows
from annotator.hotpath.rows import converted, fetch
from annotator.models import Session


@functools.cache
def _session_sql(alias: str) -> str:
    user_model: Any = get_user_model()
    columns, joins = user_columns_and_roles(alias)
    return (
        f"SELECT {_q(alias, Session, 'session_data')}, {_q(alias, Session, 'user')}, {columns} "  # noqa: S608 - see _q
        f"FROM {_q(alias, Session)} "
        f"LEFT JOIN {_q(alias, user_model)} ON {_q(alias, user_model, 'id')} = {_q(alias, Session, 'user')} "
        f"{joins}"
        f"WHERE {_q(alias, Session, 'session_key')} = %s AND {_q(alias, Session, 'expire_date')} > %s"
    )


def session_with_user(session_key: str, now: datetime) -> tuple[str, Any, Any] | None:
    """(the session's data as stored, the user id its row names or None, that user with their roles
    or None when there is no such user) for an unexpired session, or None when there is none."""
    alias = router.db_for_read(Session)
    expiry = connections[alias].ops.adapt_datetimefield_value(now)  # as the ORM compares it
    rows = fetch(alias, _session_sql(alias), [session_key, expiry])
    if not rows:
        return None
    data, user_id = converted(alias, Session, ("session_data", "user"), rows[0][:2])
    return data, user_id, user_from_rows(alias, [row[2:] for row in rows])
