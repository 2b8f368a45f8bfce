"""Sessions in the database, each read with its user in one query (annotator.access.sessions)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.utils import timezone

from annotator.access.roles import ANNOTATOR, REVIEWER, user_roles
from annotator.access.sessions import NOT_READ, SessionStore, user_read_with_session
from annotator.hotpath import user_with_roles
from annotator.hotpath.session import session_with_user
from annotator.models import Session
from tests.factories import AnnotatorFactory, UserFactory

pytestmark = pytest.mark.django_db


def _signed_in(user: Any) -> tuple[Client, Session]:
    client = Client()
    client.force_login(user)
    return client, Session.objects.get(session_key=client.session.session_key)


def test_a_signed_in_session_row_names_its_user_and_is_read_with_it(django_assert_num_queries: Any) -> None:
    # given an annotator and a reviewer, each signed in
    annotator, reviewer = AnnotatorFactory(), UserFactory(roles=[REVIEWER])
    client, row = _signed_in(annotator)
    _, other = _signed_in(reviewer)
    # then each row holds its user's id beside the signed data
    assert (row.user_id, other.user_id) == (annotator.id, reviewer.id)
    # and one query reads the session, its user and their roles, as the ORM would
    with django_assert_num_queries(1) as seen:
        data, user_id, user = session_with_user(row.session_key, timezone.now())  # type: ignore[misc]
    assert "skymark_session" in seen.captured_queries[0]["sql"] and "auth_group" in seen.captured_queries[0]["sql"]
    assert data == row.session_data and user_id == annotator.id
    orm = user_with_roles(annotator.id)
    names = [f.attname for f in get_user_model()._meta.concrete_fields]
    assert {n: getattr(user, n) for n in names} == {n: getattr(orm, n) for n in names}
    assert user_roles(user) == {ANNOTATOR}
    # and a request reads nothing else to know who asks
    with django_assert_num_queries(2) as seen:  # the session with its user, then the scenes' page
        assert client.get("/api/scenes/").status_code == 200
    assert "skymark_session" in seen.captured_queries[0]["sql"]
    assert not any("auth_" in q["sql"] or "session" in q["sql"] for q in seen.captured_queries[1:])


def test_no_session_an_expired_one_and_one_without_a_user_read_as_such() -> None:
    now = timezone.now()
    assert session_with_user("no-such-session-key-0000", now) is None
    store = SessionStore()
    store["seen"] = 1
    store.create()  # a session nobody signed in to (the login page's CSRF, messages)
    found = session_with_user(str(store.session_key), now)
    assert found is not None and found[1:] == (None, None)
    Session.objects.filter(session_key=store.session_key).update(expire_date=now - timedelta(seconds=1))
    assert session_with_user(str(store.session_key), now) is None
    assert SessionStore(store.session_key).load() == {}


def test_signing_out_ending_and_expiring_a_session_take_effect_at_the_next_request(annotator, other_annotator) -> None:
    # given two sessions of an annotator and one of another
    first, row = _signed_in(annotator)
    second, _ = _signed_in(annotator)
    third, other = _signed_in(other_annotator)
    # when the first signs out, the third's session expires, and the user's second is deleted with the user
    first.logout()
    Session.objects.filter(session_key=other.session_key).update(expire_date=timezone.now() - timedelta(seconds=1))
    # then the first and the third ask as nobody, and the second still as the annotator
    assert first.get("/api/scenes/").status_code == 403
    assert third.get("/api/scenes/").status_code == 403
    assert second.get("/api/scenes/").status_code == 200
    assert not Session.objects.filter(session_key=row.session_key).exists()
    # and deleting the account deletes its sessions
    get_user_model().objects.filter(pk=annotator.pk).delete()
    assert not Session.objects.filter(user_id=annotator.pk).exists()
    assert second.get("/api/scenes/").status_code == 403


def test_the_column_never_signs_in_anyone_the_signed_data_does_not_name(annotator, other_annotator) -> None:
    # given an annotator's session whose user column was pointed at another user (the data untouched)
    client, row = _signed_in(annotator)
    Session.objects.filter(session_key=row.session_key).update(user_id=other_annotator.id)
    # then the request is still the annotator's, read by the signed id, not the column's user
    store = SessionStore(row.session_key)
    store.load()
    assert store.user_read(annotator.id) is NOT_READ and store.user_read(other_annotator.id).id == other_annotator.id
    response = client.get("/api/scenes/")
    assert response.status_code == 200
    assert client.session["_auth_user_id"] == str(annotator.id)
    # and a column naming a user who is gone signs nobody in by itself either
    Session.objects.filter(session_key=row.session_key).update(user_id=987_654)
    assert client.get("/api/scenes/").status_code == 200


def test_a_role_taken_away_and_a_changed_password_count_at_the_next_request(annotator) -> None:
    client, _ = _signed_in(annotator)
    annotator.groups.remove(Group.objects.get(name=ANNOTATOR))
    assert client.post("/api/items/check/", {"mark_ids": [1]}, content_type="application/json").status_code == 403
    annotator.groups.add(Group.objects.get(name=ANNOTATOR))
    assert client.get("/api/scenes/").status_code == 200
    annotator.set_password("another-pass-98765")
    annotator.save()
    assert client.get("/api/scenes/").status_code == 403


def test_outside_a_request_the_backend_reads_the_user_itself(annotator) -> None:
    assert user_read_with_session(annotator.id) is NOT_READ
    from annotator.access.lockout import LockoutBackend

    assert LockoutBackend().get_user(annotator.id).id == annotator.id


@pytest.mark.django_db(transaction=True)
def test_sessions_signed_in_before_the_migration_stay_signed_in() -> None:
    # given the schema before, with a signed-in session in Django's own table and one gone stale
    before = [("annotator", "0026_job_rerun_waiting"), ("sessions", "0001_initial")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    user = old.get_model("auth", "User").objects.create(username="carried")
    from django.contrib.sessions.backends.base import SessionBase

    signer = SessionBase()
    data = {"_auth_user_id": str(user.id), "_auth_user_backend": "annotator.access.lockout.LockoutBackend"}
    rows = old.get_model("sessions", "Session").objects
    later = timezone.now() + timedelta(days=1)
    rows.create(session_key="k" * 32, session_data=signer.encode(data), expire_date=later)
    rows.create(session_key="s" * 32, session_data=signer.encode(data), expire_date=timezone.now() - timedelta(days=1))
    rows.create(session_key="t" * 32, session_data="tampered:data", expire_date=later)
    # when the migrations run
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    # then the live session is carried over with its user; the expired and the unreadable are not
    assert list(Session.objects.values_list("session_key", "user_id")) == [("k" * 32, user.id)]


def test_the_workers_delete_expired_sessions_once_an_hour(annotator, other_annotator) -> None:
    from config.celery import SESSIONS_CLEAR_EVERY_S, sessions_clear_when_due

    # given a live session, one just expired, and one expired long ago
    live, _ = _signed_in(annotator)
    _, just = _signed_in(other_annotator)
    _, old = _signed_in(annotator)
    now = timezone.now()
    Session.objects.filter(session_key=just.session_key).update(expire_date=now - timedelta(seconds=1))
    Session.objects.filter(session_key=old.session_key).update(expire_date=now - timedelta(days=30))
    # when the workers' loop comes by before it is due, nothing is deleted
    assert sessions_clear_when_due(100.0, 99.0) == 100.0
    assert Session.objects.count() == 3
    # and when it is due, the expired ones go and the next time is an hour on
    assert sessions_clear_when_due(100.0, 100.0) == 100.0 + SESSIONS_CLEAR_EVERY_S
    assert list(Session.objects.values_list("session_key", flat=True)) == [live.session.session_key]
    assert live.get("/api/scenes/").status_code == 200
