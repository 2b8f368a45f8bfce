"""annotator.hotpath.queue answers what `review.reviewing.selectors.review_queue` answers, on the same
rows, for every case the queue tells apart: open or done, this revision or an earlier one, a review
or a gold check on an item in review or approved, the reviewer's projects or another, someone
else's assignments, a superuser; and every page with its count. Runs on both databases."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.test import Client
from django.utils import timezone

from annotator.hotpath.queue import QUEUE_ONLY, ReviewQueue
from annotator.models import Item, Scene
from review.models import ReviewAssignment
from review.reviewing import selectors
from review.reviewing.serializers import BlindItemSerializer
from tests.factories import ItemFactory, ProjectFactory, ReviewerFactory, SceneFactory

pytestmark = pytest.mark.django_db


def _values(assignment: ReviewAssignment) -> dict[str, Any]:
    """What a row holds: the assignment's fields, its item's and the item's scene's that the queue
    reads (the rest deferred), each value with its type."""
    out: dict[str, Any] = {}
    for prefix, obj in (("", assignment), ("item.", assignment.item), ("scene.", assignment.item.scene)):
        for f in type(obj)._meta.concrete_fields:
            if f.attname not in obj.get_deferred_fields():
                value = getattr(obj, f.attname)
                out[prefix + f.attname] = (value, type(value))
        out[prefix + "deferred"] = obj.get_deferred_fields()
    return out


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
        orm = list(selectors.review_queue(reviewer=who).only(*QUEUE_ONLY))
        queue = selectors.review_queue_rows(reviewer=who)
        assert isinstance(queue, ReviewQueue)
        # when a page is read by hand: one query
        with django_assert_num_queries(1):
            fast = queue[0:500]
        # then the rows, in order, with every value and type, are the ORM's
        assert [a.id for a in fast] == [a.id for a in orm], who.username
        assert [_values(a) for a in fast] == [_values(a) for a in orm], who.username
        assert queue.count() == len(orm)
        # and a blind queue does not even read the key
        assert all("answer" in a.item.get_deferred_fields() for a in fast)
        for limit in (1, 2, 3):
            for offset in range(len(orm) + 2):
                page = slice(offset, offset + limit)
                assert [a.id for a in queue[page]] == [a.id for a in orm[page]]
    # the cases are all there: a review and a gold check live, the rest not, for each reviewer
    assert len(selectors.review_queue_rows(reviewer=team["reviewer"])[0:500]) == 3
    assert {a.gold for a in selectors.review_queue_rows(reviewer=team["other"])[0:500]} == {True, False}


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
        expected = json.loads(json.dumps(BlindItemSerializer(rows, many=True).data, cls=DjangoJSONEncoder))
        assert answer.json()["results"] == expected, query
        assert answer.json()["count"] == len(orm)
