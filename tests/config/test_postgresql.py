"""The PostgreSQL backend's health check (config/postgresql/base.py): no round trip while the
connection is quiet, and a connection the server closed between requests is still replaced before
the request's first query, as Django's `SELECT 1` check replaces it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import connection

from config.postgresql.base import DatabaseWrapper, connection_quiet

pytestmark = pytest.mark.django_db


@pytest.fixture
def wrapper() -> Iterator[DatabaseWrapper]:
    """A connection of its own to the test database, as a web process holds one between requests
    (the suite's own connection is inside the test's transaction)."""
    if connection.vendor != "postgresql":
        pytest.skip("the PostgreSQL backend's check")
    own = DatabaseWrapper({**connection.settings_dict}, alias="health")
    assert own.settings_dict["CONN_HEALTH_CHECKS"]
    yield own
    own.close()


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each `SELECT 1` check Django makes, with its answer (the real check runs)."""
    made: list[bool] = []
    real = DatabaseWrapper.is_usable

    def counted(self: Any) -> bool:
        made.append(real(self))
        return made[-1]

    monkeypatch.setattr(DatabaseWrapper, "is_usable", counted)
    return made


def _request(own: DatabaseWrapper) -> int:
    """What a request does with the connection: Django's start-of-request step, then a query."""
    own.close_if_unusable_or_obsolete()
    with own.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def _from_another_session(sql: str, params: list[Any]) -> Any:
    conn_params = connection.get_connection_params()
    for django_only in ("cursor_factory", "context", "prepare_threshold"):
        conn_params.pop(django_only, None)
    with psycopg.connect(**conn_params, autocommit=True) as other:
        return other.execute(sql, params).fetchone() if sql.startswith("SELECT") else other.execute(sql, params)


def _terminate(pid: int) -> None:
    assert _from_another_session("SELECT pg_terminate_backend(%s)", [pid]) == (True,)


def _wait_until_said(own: DatabaseWrapper) -> None:
    deadline = time.monotonic() + 5
    while connection_quiet(own.connection) and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_quiet_connection_is_used_without_a_select_1(wrapper: DatabaseWrapper, checks: list[bool]) -> None:
    # given a connection that served a request
    first = _request(wrapper)
    # when three more requests come
    pids = [_request(wrapper) for _ in range(3)]
    # then they run on the same backend and no check was sent
    assert pids == [first] * 3
    assert checks == []


def test_a_connection_the_server_closed_is_replaced_before_the_request_uses_it(
    wrapper: DatabaseWrapper, checks: list[bool]
) -> None:
    # given a connection that served a request, whose backend the server then ended (a restart's notice)
    first = _request(wrapper)
    _terminate(first)
    _wait_until_said(wrapper)
    assert not connection_quiet(wrapper.connection)
    # when the next request comes
    second = _request(wrapper)
    # then Django's check ran, found it dead, and the request ran on a new backend without an error
    assert checks == [False]
    assert second != first
    # and the new connection is quiet again: the request after needs no check
    assert _request(wrapper) == second
    assert checks == [False]


def test_anything_waiting_on_the_socket_gets_djangos_check(wrapper: DatabaseWrapper, checks: list[bool]) -> None:
    # given a connection with a message the server sent unasked (another session's notification)
    pid = _request(wrapper)
    with wrapper.cursor() as cursor:
        cursor.execute("LISTEN skymark_health")
    _from_another_session("SELECT pg_notify('skymark_health', %s)", ["hello"])
    _wait_until_said(wrapper)
    assert not connection_quiet(wrapper.connection)
    # when the next request comes: the check runs, answers healthy, and the request keeps its backend
    assert _request(wrapper) == pid
    assert checks == [True]


def test_a_closed_connection_is_never_quiet(wrapper: DatabaseWrapper) -> None:
    _request(wrapper)
    raw = wrapper.connection
    wrapper.close()
    assert not connection_quiet(raw)
