"""annotator.compiling.bulk and POST /api/items/bulk/: submit, compile again, revise or withdraw many items in
one request, each through the item lifecycle on its own, with a result per item."""

from __future__ import annotations

from typing import Any

import pytest

from annotator.compiling import lifecycle
from annotator.compiling.bulk import MAX_BULK_ITEMS
from annotator.compiling.services import item_compile
from annotator.marking.services import mark_update
from annotator.models import Assignment, Item
from tests.annotator.compiling.test_compile_each_task import Marks, _poly

pytestmark = pytest.mark.django_db

TV = Item.Task.TARGET_VISIBILITY
URL = "/api/items/bulk/"


def _drafts(m: Marks, n: int) -> list[Item]:
    marks = [m("polygon", _poly(10 + i, 10, 40 + i, 40), "pier", facts={"visible": True}) for i in range(n)]
    return [item_compile(user=m.annotator, task=TV, mark_ids=[mark.id]) for mark in marks]


def _state(item: Item) -> str:
    return Item.objects.get(id=item.id).state


def test_bulk_submit_moves_each_item_it_can_and_says_why_not_for_the_others(
    annotator: Any, other_annotator: Any, api: Any
) -> None:
    # given two fresh drafts, a stale one, one already in review, another annotator's draft, and an id of nothing
    m = Marks(annotator)
    fresh_a, fresh_b, stale, submitted = _drafts(m, 4)
    lifecycle.item_submit(item=submitted, actor=annotator)
    region = stale.marks.get()
    mark_update(mark=region, version=region.version, changes={"geometry": _poly(5, 5, 50, 50)})
    theirs = _drafts(Marks(other_annotator), 1)[0]
    ids = [fresh_a.id, stale.id, submitted.id, theirs.id, 10**9, fresh_b.id]

    # when the annotator submits them all at once
    response = api(annotator).post(URL, {"action": "submit", "ids": ids}, format="json")

    # then each fresh draft went to review, and each other item is refused with the reason, in the order asked
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["action"], body["done"], body["refused"]) == ("submit", 2, 4)
    results = body["results"]
    assert [(r["id"], r["ok"]) for r in results] == [(i, i in (fresh_a.id, fresh_b.id)) for i in ids]
    errors = {r["id"]: r["error"] for r in results}
    assert errors[fresh_a.id] == errors[fresh_b.id] == ""
    assert errors[stale.id] == "a mark of this item changed after it was compiled; compile it again before it goes on"
    assert errors[submitted.id] == "the item is in review; only drafts can be submitted"
    # another's item reads as unknown, like one that does not exist
    assert errors[theirs.id] == errors[10**9] == "no such item among yours"
    assert results[0]["item"]["state"] == "in_review" and results[1]["item"] is None
    # and the database agrees: only the fresh drafts moved, their marks now locked
    assert [_state(i) for i in (fresh_a, fresh_b, stale, submitted, theirs)] == [
        "in_review", "in_review", "draft", "in_review", "draft",
    ]  # fmt: skip
    assert fresh_a.marks.get().locked and not stale.marks.get().locked


def test_bulk_recompile_and_withdraw_go_through_the_same_services(annotator: Any, api: Any) -> None:
    # given a stale draft, a stale rejected item, a fresh first draft and a rejected item
    m = Marks(annotator)
    stale_draft, stale_rejected, fresh, rejected = _drafts(m, 4)
    for item in (stale_rejected, rejected):
        lifecycle.item_submit(item=item, actor=annotator)
        lifecycle.item_reject(item=item, actor=None, reason="a reviewer rejected it")
    for item in (stale_draft, stale_rejected):
        region = item.marks.get()
        mark_update(mark=region, version=region.version, changes={"geometry": _poly(5, 5, 60, 60)})
    client = api(annotator)

    # when the two stale items are compiled again in one request
    body = client.post(URL, {"action": "recompile", "ids": [stale_draft.id, stale_rejected.id]}, format="json").json()

    # then each has a fresh draft: the stale draft is gone, the rejected item stays, replaced
    assert body["done"] == 2
    new_draft, new_from_rejected = (r["item"] for r in body["results"])
    assert (new_draft["state"], new_draft["stale"], new_from_rejected["state"]) == ("draft", False, "draft")
    assert not Item.objects.filter(id=stale_draft.id).exists()
    assert Item.objects.get(id=stale_rejected.id).replaced_by_id == new_from_rejected["id"]

    # when a first draft and a rejected item are withdrawn together
    body = client.post(URL, {"action": "withdraw", "ids": [fresh.id, rejected.id]}, format="json").json()

    # then the rejected item is withdrawn and the first draft, never reviewed, is refused with the rule
    assert [(r["id"], r["ok"]) for r in body["results"]] == [(fresh.id, False), (rejected.id, True)]
    assert body["results"][0]["error"] == (
        "the item is draft; only rejected items and their draft revisions can be withdrawn"
    )
    assert (_state(fresh), _state(rejected)) == ("draft", "withdrawn")


def test_an_item_of_a_scene_no_longer_assigned_is_refused(annotator: Any, api: Any) -> None:
    m = Marks(annotator)
    (draft,) = _drafts(m, 1)
    Assignment.objects.filter(scene=m.scene, annotator=annotator).delete()
    body = api(annotator).post(URL, {"action": "submit", "ids": [draft.id]}, format="json").json()
    assert body["results"][0]["error"] == "this scene is no longer assigned to you"
    assert _state(draft) == "draft"


def test_the_request_is_bounded_and_checked(annotator: Any, reviewer: Any, admin: Any, api: Any) -> None:
    client = api(annotator)
    too_many = client.post(URL, {"action": "submit", "ids": list(range(1, MAX_BULK_ITEMS + 2))}, format="json")
    assert too_many.status_code == 400 and "ids" in too_many.json()
    twice = client.post(URL, {"action": "submit", "ids": [5, 5]}, format="json")
    assert twice.status_code == 400 and twice.json()["ids"] == ["name each item once"]
    unknown = client.post(URL, {"action": "approve", "ids": [5]}, format="json")
    assert unknown.status_code == 400 and "action" in unknown.json()
    assert client.post(URL, {"action": "submit", "ids": []}, format="json").status_code == 400
    # reviewers and admins do not act on annotators' items in bulk
    assert api(reviewer).post(URL, {"action": "submit", "ids": [5]}, format="json").status_code == 403
    assert api(admin).post(URL, {"action": "submit", "ids": [5]}, format="json").status_code == 403
    assert api().post(URL, {"action": "submit", "ids": [5]}, format="json").status_code == 403


@pytest.mark.parametrize("n", [3, 30])
def test_queries_grow_by_a_fixed_number_per_item(annotator: Any, api: Any, n: int, django_assert_num_queries) -> None:  # type: ignore[no-untyped-def]
    # given n fresh drafts
    items = _drafts(Marks(annotator), n)
    client = api(annotator)

    # when they are submitted in one request
    # then the request costs a fixed base plus the same few queries per item (its savepoint, the
    # lifecycle's row locks, update, relock and audit event, the reviewer assignment under the
    # item's project's review policy)
    with django_assert_num_queries(BASE + PER_ITEM * n):
        body = client.post(URL, {"action": "submit", "ids": [i.id for i in items]}, format="json").json()
    assert body["done"] == n


BASE, PER_ITEM = 5, 21


def test_bulk_revise_makes_the_next_revision_of_each_rejected_item(annotator: Any, api: Any) -> None:
    # given two rejected items and a draft
    m = Marks(annotator)
    first, second, draft = _drafts(m, 3)
    for item in (first, second):
        lifecycle.item_submit(item=item, actor=annotator)
        lifecycle.item_reject(item=item, actor=None, reason="a reviewer rejected it")

    # when all three are revised in one request
    body = api(annotator).post(URL, {"action": "revise", "ids": [first.id, draft.id, second.id]}, format="json").json()

    # then each rejected item is its own next revision, a draft, and the draft is refused with the rule
    assert [(r["id"], r["ok"]) for r in body["results"]] == [(first.id, True), (draft.id, False), (second.id, True)]
    assert body["results"][1]["error"] == "the item is draft; only rejected items can be revised"
    for result, item in ((body["results"][0], first), (body["results"][2], second)):
        assert (result["item"]["id"], result["item"]["state"], result["item"]["revision"]) == (item.id, "draft", 2)
        assert Item.objects.get(id=item.id).state == "draft"
    assert _state(draft) == "draft"
