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

and of each row it reads what the queue's answer shows (review.reviewing.serializers.BlindItemSerializer:
the item's question, options, task and scene with the scene's name), as `.only(*QUEUE_ONLY)` would:
at full size the page's 100 rows as whole assignments, items and scenes were half of the queue's
in-process time, building instances and converting columns it never sent (the answer key among them).
tests/annotator/hotpath/test_queue.py holds every value, type, page and count to the ORM's. The
review app's model is reached through the item's relation, as annotator.hotpath.items reaches the
reviews: the annotator app does not import the review app.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from django.db import router

from annotator.hotpath import _in_member_projects, _q
from annotator.hotpath.rows import fetch, instance
from annotator.models import Item, Scene

# What a row of the queue holds of the assignment, its item and the item's scene (the rest stays
# deferred), each in its model's field order, as `instance` (Model.from_db) reads values; QUEUE_ONLY
# names them for the ORM. tests/annotator/hotpath/test_queue.py compares every value with the ORM's.
_ASSIGNMENT_FIELDS = ("id", "item", "revision", "gold")
_ITEM_FIELDS = ("id", "scene", "task", "question", "options", "answer_format")
_SCENE_FIELDS = ("id", "name")
QUEUE_ONLY = (
    *_ASSIGNMENT_FIELDS,
    *(f"item__{name}" for name in _ITEM_FIELDS),
    *(f"item__scene__{name}" for name in _SCENE_FIELDS),
)


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
        *(_q(alias, ra, name) for name in _ASSIGNMENT_FIELDS),
        *(_q(alias, Item, name) for name in _ITEM_FIELDS),
        *(_q(alias, Scene, name) for name in _SCENE_FIELDS),
    ]
    return (
        f"SELECT {', '.join(columns)} {_where(alias, members_only)} ORDER BY {_q(alias, ra, 'id')} LIMIT %s OFFSET %s"
    )


@functools.cache
def _count_sql(alias: str, members_only: bool) -> str:
    return f"SELECT COUNT(*) {_where(alias, members_only)}"


class ReviewQueue:
    """A reviewer's open, live assignments in id order, each with `.item` and `.item.scene` (what
    QUEUE_ONLY names; the rest deferred), as annotator.pagination reads a list: sliced, one query for the page;
    `count()` counts them."""

    def __init__(self, *, reviewer: Any, live: Mapping[bool, str]) -> None:
        """`live`: the item's state in which an assignment is live, for a review (False) and a gold
        check (True); the review app's rule (review.reviewing.selectors.LIVE_STATE)."""
        self.alias = router.db_for_read(_assignment_model())
        self.reviewer, self.live = reviewer, live
        self.members_only = not getattr(reviewer, "is_superuser", False)

    def _params(self) -> list[Any]:
        return [self.reviewer.pk, self.live[False], self.live[True]] + ([self.reviewer.pk] if self.members_only else [])

    def __getitem__(self, page: slice) -> list[Any]:
        start = page.start or 0
        model, fields = _assignment_model(), _ASSIGNMENT_FIELDS
        n, m = len(fields), len(_ITEM_FIELDS)
        rows = fetch(self.alias, _page_sql(self.alias, self.members_only), [*self._params(), page.stop - start, start])
        out = []
        for row in rows:
            assignment = instance(self.alias, model, fields, row[:n])
            item = instance(self.alias, Item, _ITEM_FIELDS, row[n : n + m])
            item.scene = instance(self.alias, Scene, _SCENE_FIELDS, row[n + m :])
            assignment.item = item
            out.append(assignment)
        return out

    def count(self) -> int:
        return int(fetch(self.alias, _count_sql(self.alias, self.members_only), self._params())[0][0])
