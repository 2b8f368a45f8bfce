"""A reviewer's queue by hand: GET /api/review/queue/, read before every blind step.

Why: in-process on the `--scale 0.05` seed the queue took 3.0 ms of CPU (a trivial API answer
1.3-1.75 ms), and cProfile put half of its view in Django building and compiling the one queryset
(two filters through the item, the membership subquery, the live-assignment Q, select_related and
defer) against a few per cent running it (bench/README.md, "The items list and the review queue by
hand").

What it answers is `review.reviewing.selectors.review_queue`, in the same order:

    ReviewAssignment.objects.filter(reviewer=reviewer, done_at__isnull=True, revision=F("item__revision"))
        .filter(item__scene__project_id__in=<their projects>)      # none for a superuser
        .filter(Q(gold=False, item__state=IN_REVIEW) | Q(gold=True, item__state=APPROVED))
        .select_related("item__scene").defer("item__provenance").order_by("id")

and of each row it reads only what the queue's answer shows, and answers it in the shape
review.reviewing.serializers.BlindItemSerializer gives an item (the question, options, task and
scene with the scene's name; never the answer key), without making model instances: at full size
(`bench/scale_seed.py`, a reviewer's page of 100 of their 334 open assignments) cProfile put 40 % of
the queue's in-process time in Model.from_db for the page's 300 assignments, items and scenes and a
further 20 % in the serializer reading them back (bench/README.md, "The review queue's answer without
instances"). tests/annotator/hotpath/test_queue.py holds every row, page and count to the ORM's rows
serialized. The review app's model is reached through the item's relation, as annotator.hotpath.items
reaches the reviews: the annotator app does not import the review app.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from django.db import connections, router
from django.db.backends.base.base import BaseDatabaseWrapper

from annotator.hotpath import _in_member_projects, _q
from annotator.hotpath.rows import converted, fetch
from annotator.models import Item, Scene

# The columns a row of the answer is made from, each table's in its model's field order (as the
# ORM's converters read them); `_answer` gives them the serializer's names and order.
_ITEM_FIELDS = ("id", "scene", "task", "question", "options", "answer_format")
_SCENE_FIELDS = ("name",)


def _assignment_model() -> Any:
    return Item._meta.get_field("review_assignments").related_model


@functools.cache
def _where(alias: str, members_only: bool) -> str:
    ra: Any = _assignment_model()
    item, a = functools.partial(_q, alias, Item), functools.partial(_q, alias, ra)
    where = (
        f"{a('reviewer')} = %s AND {a('done_at')} IS NULL AND {a('revision')} = {item('revision')} "
        f"AND ((NOT {a('gold')} AND {item('state')} = %s) OR ({a('gold')} AND {item('state')} = %s))"
    )
    if members_only:
        where += _in_member_projects(alias)
    return (
        f"FROM {_q(alias, ra)} INNER JOIN {_q(alias, Item)} ON {item('id')} = {a('item')} "
        f"INNER JOIN {_q(alias, Scene)} ON {_q(alias, Scene, 'id')} = {item('scene')} WHERE {where}"
    )


@functools.cache
def _page_sql(alias: str, members_only: bool) -> str:
    ra: Any = _assignment_model()
    columns = [
        *(_q(alias, Item, name) for name in _ITEM_FIELDS),
        *(_q(alias, Scene, name) for name in _SCENE_FIELDS),
    ]
    return (
        f"SELECT {', '.join(columns)} {_where(alias, members_only)} ORDER BY {_q(alias, ra, 'id')} LIMIT %s OFFSET %s"
    )


@functools.cache
def _count_sql(alias: str, members_only: bool) -> str:
    return f"SELECT COUNT(*) {_where(alias, members_only)}"


def _answer(alias: str, row: tuple[Any, ...], connection: BaseDatabaseWrapper) -> dict[str, Any]:
    """One row as BlindItemSerializer answers its item: the same keys in the same order, the same
    values (the options decoded from their JSON as the ORM decodes them)."""
    n = len(_ITEM_FIELDS)
    converted_row = converted(alias, Item, _ITEM_FIELDS, row[:n], connection)
    item_id, scene_id, task, question, options, answer_format = converted_row
    (scene_name,) = row[n:]
    return {
        "id": item_id,
        "uid": Item.uid_for(item_id),
        "scene": scene_id,
        "scene_name": scene_name,
        "task": task,
        "question": question,
        "options": options,
        "answer_format": answer_format,
    }


class ReviewQueue:
    """A reviewer's open, live assignments in id order, each answered as its item's blind page
    (`_answer`), as annotator.pagination reads a list: sliced, one query for the page; `count()`
    counts them."""

    def __init__(self, *, reviewer: Any, live: Mapping[bool, str]) -> None:
        """`live`: the item's state in which an assignment is live, for a review (False) and a gold
        check (True); the review app's rule (review.reviewing.selectors.LIVE_STATE)."""
        self.alias = router.db_for_read(_assignment_model())
        self.reviewer, self.live = reviewer, live
        self.members_only = not getattr(reviewer, "is_superuser", False)

    def _params(self) -> list[Any]:
        return [self.reviewer.pk, self.live[False], self.live[True]] + ([self.reviewer.pk] if self.members_only else [])

    def __getitem__(self, page: slice) -> list[dict[str, Any]]:
        start = page.start or 0
        rows = fetch(self.alias, _page_sql(self.alias, self.members_only), [*self._params(), page.stop - start, start])
        connection = connections[self.alias]
        return [_answer(self.alias, row, connection) for row in rows]

    def count(self) -> int:
        return int(fetch(self.alias, _count_sql(self.alias, self.members_only), self._params())[0][0])
