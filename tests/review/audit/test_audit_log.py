"""review.audit: every lifecycle transition becomes one event (who, when, from, to, why), the
database refuses to change or delete events whoever asks, and the admin shows them read-only."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from annotator.compiling import lifecycle
from annotator.compiling.services import item_compile, item_revise
from annotator.marking.services import mark_delete, mark_update
from annotator.models import Item
from review.audit.selectors import events_for_item
from review.models import ItemEvent
from tests.factories import AdminFactory, MarkFactory

pytestmark = pytest.mark.django_db

TV = Item.Task.TARGET_VISIBILITY


def _trail(item_id: int) -> list[tuple]:
    return [
        (e.action, e.from_state, e.to_state, e.actor.username if e.actor else None, e.reason, e.revision)
        for e in events_for_item(item_id=item_id)
    ]


def test_each_transition_is_recorded_with_who_from_to_and_why(annotator, admin) -> None:
    # given a compiled item, submitted, rejected, revised and submitted again
    mark = MarkFactory(author=annotator, facts={"visible": True})
    item = item_compile(user=annotator, task=TV, mark_ids=[mark.id])
    lifecycle.item_submit(item=item, actor=annotator)
    lifecycle.item_reject(item=item, actor=admin, reason="evidence not visible")
    mark_update(mark=mark, version=mark.version, changes={"facts": {"visible": False}})
    item_revise(user=annotator, item_id=item.id, note="moved the region")
    lifecycle.item_submit(item=item, actor=annotator)

    # then the log holds every move in order, with its revision
    assert _trail(item.id) == [
        ("create", "", "draft", "ann", "compiled from marks", 1),
        ("submit", "draft", "in_review", "ann", "submitted for review", 1),
        ("reject", "in_review", "rejected", "ada", "evidence not visible", 1),
        ("revise", "rejected", "draft", "ann", "moved the region", 2),
        ("submit", "draft", "in_review", "ann", "submitted for review", 2),
    ]
    assert all(e.at is not None for e in ItemEvent.objects.all())


def test_a_discarded_draft_keeps_its_events(annotator) -> None:
    mark = MarkFactory(author=annotator, facts={"visible": True})
    item = item_compile(user=annotator, task=TV, mark_ids=[mark.id])
    mark_delete(mark=mark, version=1)
    assert not Item.objects.filter(id=item.id).exists()
    assert [a for a, *_ in _trail(item.id)] == ["create", "discard"]


def test_a_failed_transition_records_nothing(annotator) -> None:
    mark = MarkFactory(author=annotator, facts={"visible": True})
    item = item_compile(user=annotator, task=TV, mark_ids=[mark.id])
    before = ItemEvent.objects.count()
    with pytest.raises(Exception, match="only items in review"):
        lifecycle.item_approve(item=item, actor=annotator, reason="x")
    assert ItemEvent.objects.count() == before


def test_the_database_refuses_to_change_or_delete_events(annotator) -> None:
    # given a recorded event
    mark = MarkFactory(author=annotator, facts={"visible": True})
    item = item_compile(user=annotator, task=TV, mark_ids=[mark.id])
    event = ItemEvent.objects.get(item_id=item.id)

    # then UPDATE and DELETE are refused, through the ORM and in plain SQL alike
    for attempt in (
        lambda: ItemEvent.objects.filter(id=event.id).update(reason="nothing happened"),
        lambda: ItemEvent.objects.filter(id=event.id).delete(),
        lambda: event.delete(),
    ):
        with pytest.raises(IntegrityError), transaction.atomic():
            attempt()
    for sql in (
        "UPDATE review_itemevent SET to_state = 'approved' WHERE id = %s",
        "DELETE FROM review_itemevent WHERE id = %s",
    ):
        with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [event.id])
    stored = ItemEvent.objects.get(id=event.id)
    assert (stored.action, stored.to_state, stored.reason) == ("create", "draft", "compiled from marks")


def test_the_admin_shows_events_and_changes_none(client) -> None:  # type: ignore[no-untyped-def]
    # given a superuser (every Django permission) and an event
    boss = AdminFactory(username="root")
    boss.is_staff = boss.is_superuser = True
    boss.save()
    mark = MarkFactory(facts={"visible": True})
    item = item_compile(user=mark.author, task=TV, mark_ids=[mark.id])
    event = ItemEvent.objects.get(item_id=item.id)
    client.force_login(boss)

    # then the list and the event read, and neither change nor delete is offered or accepted
    assert client.get("/django-admin/review/itemevent/").status_code == 200
    page = client.get(f"/django-admin/review/itemevent/{event.id}/change/")
    assert page.status_code == 200 and b'name="_save"' not in page.content
    assert client.post(f"/django-admin/review/itemevent/{event.id}/change/", {"reason": "x"}).status_code == 403
    assert client.post(f"/django-admin/review/itemevent/{event.id}/delete/", {"post": "yes"}).status_code == 403
    assert client.get("/django-admin/review/itemevent/add/").status_code == 403
    assert ItemEvent.objects.get(id=event.id).reason == "compiled from marks"
