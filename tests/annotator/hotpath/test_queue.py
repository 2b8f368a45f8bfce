"""annotator.hotpath.queue answers what `review.reviewing.selectors.review_queue` answers, on the same
rows, for every case the queue tells apart: open or done, this revision or an earlier one, a review
or a gold check on an item in review or approved, the reviewer's projects or another, someone
else's assignments, a superuser; and every page with its count. Runs on both databases."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotator.hotpath.queue import ReviewQueue
from annotator.models import Item, Scene
from review.models import ReviewAssignment
from review.reviewing import selectors
from review.reviewing.serializers import BlindItemSerializer
from tests.factories import ItemFactory, ProjectFactory, ReviewerFactory, SceneFactory

pytestmark = pytest.mark.django_db


def _serialized(items: list[Item]) -> list[dict[str, Any]]:
    """The items as BlindItemSerializer answers them, through JSON as the API sends them."""
    return json.loads(json.dumps(BlindItemSerializer(items, many=True).data, cls=DjangoJSONEncoder))


def _queue_team() -> dict[str, Any]:
    reviewer, other = ReviewerFactory(), ReviewerFactory()
    scene = SceneFactory(project=ProjectFactory(members={"reviewer": [reviewer, other]}))
    left = SceneFactory(project=ProjectFactory(members={"reviewer": [other]}))  # the reviewer is no member there
    now = timezone.now()

    def assign(who: Any, state: str, gold: bool = False, on: Scene = scene, **kw: Any) -> Item:
        item = ItemFactory(scene=on, state=state, revision=kw.pop("item_revision", 1))
        ReviewAssignment.objects.create(item=item, revision=kw.pop("revision", 1), reviewer=who, gold=gold, **kw)
        return item

    for who in (reviewer, other):
        assign(who, Item.State.IN_REVIEW)  # live
        assign(who, Item.State.APPROVED, gold=True)  # a gold check: live
        assign(who, Item.State.IN_REVIEW, gold=True)  # a gold check on an item not approved yet
        assign(who, Item.State.APPROVED)  # a review of an item approved since
        assign(who, Item.State.IN_REVIEW, done_at=now)  # done
        assign(who, Item.State.IN_REVIEW, revision=1, item_revision=2)  # an earlier round
        assign(who, Item.State.IN_REVIEW, on=left)  # in a project they left (or never joined)
        assign(who, Item.State.IN_REVIEW, opened_at=now)  # live, opened
    return {"reviewer": reviewer, "other": other, "superuser": ReviewerFactory(is_superuser=True)}


def test_a_reviewers_queue_is_the_orms_in_every_case(django_assert_num_queries: Any) -> None:
    team = _queue_team()
    ReviewAssignment.objects.create(
        item=Item.objects.filter(state=Item.State.IN_REVIEW).last(), revision=1, reviewer=team["superuser"]
    )
    for who in team.values():
        orm = [a.item for a in selectors.review_queue(reviewer=who)]
        queue = selectors.review_queue_rows(reviewer=who)
        assert isinstance(queue, ReviewQueue)
        # when a page is read by hand: one query
        with django_assert_num_queries(1):
            fast = queue[0:500]
        # then the rows, in order, are the ORM's items serialized, key for key and value for value
        # (types included), in the serializer's key order
        assert fast == _serialized(orm), who.username
        assert all(list(row) == BlindItemSerializer.Meta.fields for row in fast)
        assert all(type(row["options"]) is list and type(row["id"]) is int for row in fast)
        assert queue.count() == len(orm)
        for limit in (1, 2, 3):
            for offset in range(len(orm) + 2):
                page = slice(offset, offset + limit)
                assert [row["id"] for row in queue[page]] == [item.id for item in orm[page]]
    # the cases are all there: a review and a gold check live, the rest not, for each reviewer
    assert len(selectors.review_queue_rows(reviewer=team["reviewer"])[0:500]) == 3
    gold = {item.id for item in Item.objects.filter(review_assignments__gold=True)}
    assert {row["id"] in gold for row in selectors.review_queue_rows(reviewer=team["other"])[0:500]} == {True, False}


def test_a_blind_queue_does_not_read_the_key(django_assert_num_queries: Any) -> None:
    team = _queue_team()
    with CaptureQueriesContext(connection) as queries:
        rows = selectors.review_queue_rows(reviewer=team["other"])[0:500]
    assert rows and len(queries.captured_queries) == 1
    sql = queries.captured_queries[0]["sql"]
    assert '"answer"' not in sql and '"provenance"' not in sql, sql


def test_the_queue_answer_is_the_orm_rows_serialized(django_assert_num_queries: Any) -> None:
    team = _queue_team()
    client = Client()
    client.force_login(team["other"])
    orm = [a.item for a in selectors.review_queue(reviewer=team["other"])]
    assert len(orm) == 4  # the other reviewer is a member of both projects
    for query, rows in (("?limit=2", orm[:2]), ("?limit=2&offset=2", orm[2:4]), ("", orm)):
        # when the queue is read: the user with their roles, the page (and the count of a full page)
        with django_assert_num_queries(2 + (bool(query) and len(rows) == 2)):
            answer = client.get(f"/api/review/queue/{query}")
        assert answer.status_code == 200
        assert answer.json()["results"] == _serialized(rows), query
        assert answer.json()["count"] == len(orm)
