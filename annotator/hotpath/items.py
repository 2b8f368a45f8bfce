"""An annotator's items list by hand: the workspace's items panel, read after every compile and
on every scene it opens (GET /api/items/?scene=ID), and the items page (GET /api/items/).

Why: under the 8-client read load the items list was the costliest read (6.0-6.5 ms of CPU on the
`--scale 0.05` seed, a trivial API answer 1.3-1.75 ms), and cProfile put 44 % of its view in Django
building and compiling the two querysets (annotate with two filtered Counts and four JSON key
reads, the membership subquery, the marks' prefetch) and a further quarter in making the rows' and
marks' model instances and their related managers, against 6 % running the SQL (bench/README.md,
"The items list and the review queue by hand"). Here the page is one query (the review tallies as correlated counts, the
model view joined) and its marks a second, as the ORM does it, with the SQL built once per shape.

What it answers is `compiling.selectors.item_rows_for_user` for a user who sees their own work only
(`access.scopes.sees_own_work_only`), ordered by id:

    Item.objects.select_related("model_view").defer("provenance")
        .prefetch_related(Prefetch("marks", queryset=Mark.objects.only("id", "version", "label",
                                                                        "satellite_image_id")))
        .annotate(approvals=..., rejections=..., phrasing_text=KeyTransform(...), ...,
                  stale_snapshots=Case(When(stale=True, then=KeyTransform("marks", ...))))
        .filter(scene_id=..., [state__in=OPEN_STATES, replaced_by__isnull=True],
                scene__project_id__in=<their projects>, author=user)
        .order_by("id")

One difference, on purpose: a JSON key holding a string is read here as that string on both
databases, where Django's KeyTransform on SQLite decodes a string that happens to be JSON text
("42", "true") into a number or a boolean. tests/annotator/hotpath/test_items.py holds every other
value, type, page and count to the ORM's.
"""

from __future__ import annotations

import functools
import json
from collections import defaultdict
from typing import Any

from django.db import connections, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import QuerySet

from annotator.compiling.lifecycle import OPEN_STATES
from annotator.hotpath import _member_projects, _q
from annotator.hotpath.rows import fetch, field_names, instance
from annotator.models import Item, Mark, ModelView, Scene

# The annotations ItemRowSerializer reads, and the provenance keys the JSON ones come from.
COUNTS = {"approvals": "approve", "rejections": "reject"}
JSON_KEYS = {"phrasing_text": "phrasing_text", "phrasing_id": "phrasing_id", "phrasing_index": "phrasing"}
SNAPSHOTS = "stale_snapshots"

# The fields read of each, in the model's field order, as Model.from_db reads a partial row's values.
_ITEM_FIELDS = field_names(Item, without=("provenance",))
_VIEW_FIELDS = field_names(ModelView)
_MARK_FIELDS = tuple(name for name in field_names(Mark) if name in {"id", "version", "label", "satellite_image"})


def _review_model() -> Any:
    return Item._meta.get_field("reviews").related_model  # the review app's model, not imported here


def _json_key(alias: str, key: str) -> str:
    """The key's value as JSON text, or NULL when absent: `->` means that on PostgreSQL (jsonb) and
    on SQLite from 3.38. The key is one of the constants above, never a value from a request."""
    assert key.isidentifier(), key
    return f"({_q(alias, Item, 'provenance')} -> '{key}')"


def _where(alias: str, by_scene: bool, open_only: bool, members_only: bool) -> str:
    """The rows' condition, the page's and the count's (OwnItemRows._where_params fills it)."""
    item = functools.partial(_q, alias, Item)
    where = [f"{item('author')} = %s"]
    if by_scene:
        where.append(f"{item('scene')} = %s")
    if open_only:
        where.append(f"{item('state')} IN ({', '.join(['%s'] * len(OPEN_STATES))}) AND {item('replaced_by')} IS NULL")
    if members_only:
        scene = functools.partial(_q, alias, Scene)
        mine = f"SELECT {scene('id')} FROM {scene()} WHERE {scene('project')} IN {_member_projects(alias)}"  # noqa: S608
        where.append(f"{item('scene')} IN ({mine})")
    return " AND ".join(where)


@functools.cache
def _page_sql(alias: str, *shape: bool) -> str:
    quote = connections[alias].ops.quote_name
    review: Any = _review_model()
    item = functools.partial(_q, alias, Item)
    counts = [
        f"(SELECT COUNT(*) FROM {_q(alias, review)} WHERE {_q(alias, review, 'item')} = {item('id')} "  # noqa: S608
        f"AND {_q(alias, review, 'revision')} = {item('revision')} AND NOT {_q(alias, review, 'gold')} "
        f"AND {_q(alias, review, 'decision')} = %s) AS {quote(name)}"
        for name in COUNTS
    ]
    keys = [f"{_json_key(alias, key)} AS {quote(name)}" for name, key in JSON_KEYS.items()]
    snapshots = f"CASE WHEN {item('stale')} THEN {_json_key(alias, 'marks')} ELSE NULL END AS {quote(SNAPSHOTS)}"
    columns = [item(name) for name in _ITEM_FIELDS] + [_q(alias, ModelView, name) for name in _VIEW_FIELDS]
    return (
        f"SELECT {', '.join([*columns, *counts, *keys, snapshots])} FROM {_q(alias, Item)} "  # noqa: S608 - see _q
        f"LEFT OUTER JOIN {_q(alias, ModelView)} ON {_q(alias, ModelView, 'item')} = {item('id')} "
        f"WHERE {_where(alias, *shape)} ORDER BY {item('id')} LIMIT %s OFFSET %s"
    )


@functools.cache
def _count_sql(alias: str, *shape: bool) -> str:
    return f"SELECT COUNT(*) FROM {_q(alias, Item)} WHERE {_where(alias, *shape)}"  # noqa: S608 - see _q


def _decoded(value: Any) -> Any:
    # PostgreSQL's jsonb comes as text through Django's connection, as SQLite's `->` does.
    return json.loads(value) if isinstance(value, str) else value


def _marks_of(alias: str, item_ids: list[int]) -> dict[int, list[Mark]]:
    """Each item's marks (id, version, label, image; the rest deferred), in id order: the
    prefetch's one query."""
    via: Any = Item._meta.get_field("marks").remote_field.through
    columns = ", ".join([_q(alias, via, "item"), *(_q(alias, Mark, name) for name in _MARK_FIELDS)])
    sql = (
        f"SELECT {columns} FROM {_q(alias, via)} "  # noqa: S608 - see _q; the ids are parameters
        f"INNER JOIN {_q(alias, Mark)} ON {_q(alias, Mark, 'id')} = {_q(alias, via, 'mark')} "
        f"WHERE {_q(alias, via, 'item')} IN ({', '.join(['%s'] * len(item_ids))}) ORDER BY {_q(alias, Mark, 'id')}"
    )
    out: dict[int, list[Mark]] = defaultdict(list)
    connection = connections[alias]
    for item_id, *values in fetch(alias, sql, item_ids):
        out[item_id].append(instance(alias, Mark, _MARK_FIELDS, values, connection))
    return out


def _prefetched(alias: str, marks: list[Mark]) -> QuerySet[Mark]:
    """What prefetch_related leaves for `item.marks.all()`: a queryset already read."""
    qs: QuerySet[Mark] = QuerySet(model=Mark, using=alias)
    qs._result_cache, qs._prefetch_done = marks, True  # type: ignore[attr-defined]
    return qs


def _item_row(alias: str, row: Any, connection: BaseDatabaseWrapper) -> Item:
    n, m = len(_ITEM_FIELDS), len(_VIEW_FIELDS)
    item = instance(alias, Item, _ITEM_FIELDS, row[:n], connection)
    view = row[n : n + m]
    if view[0] is not None:  # the LEFT JOIN found the item's model view
        item.model_view = instance(alias, ModelView, _VIEW_FIELDS, view, connection)
    else:  # none yet: known to be none, as select_related leaves it (no query when read)
        Item.model_view.related.set_cached_value(item, None)  # type: ignore[attr-defined]
    extra = row[n + m :]
    for name, value in zip(COUNTS, extra, strict=False):
        setattr(item, name, int(value))
    for name, value in zip(JSON_KEYS, extra[len(COUNTS) :], strict=False):
        setattr(item, name, _decoded(value))
    setattr(item, SNAPSHOTS, _decoded(extra[-1]))
    return item


class OwnItemRows:
    """An annotator's item rows in id order, as annotator.pagination reads a list: sliced, it
    reads that page (two queries: the rows, their marks); `count()` counts them."""

    def __init__(self, *, user: Any, scene_id: int | None, open_only: bool) -> None:
        self.alias = router.db_for_read(Item)
        self.user, self.scene_id, self.open_only = user, scene_id, open_only
        self.members_only = not getattr(user, "is_superuser", False)

    def _shape(self) -> tuple[bool, bool, bool]:
        return self.scene_id is not None, self.open_only, self.members_only

    def _where_params(self) -> list[Any]:
        params: list[Any] = [self.user.pk]
        if self.scene_id is not None:
            params.append(self.scene_id)
        if self.open_only:
            params += list(OPEN_STATES)
        return params + ([self.user.pk] if self.members_only else [])

    def __getitem__(self, page: slice) -> list[Item]:
        start = page.start or 0
        sql = _page_sql(self.alias, *self._shape())
        params = [*COUNTS.values(), *self._where_params(), page.stop - start, start]
        connection = connections[self.alias]
        items = [_item_row(self.alias, row, connection) for row in fetch(self.alias, sql, params)]
        marks = _marks_of(self.alias, [i.id for i in items]) if items else {}
        for item in items:
            item._prefetched_objects_cache = {"marks": _prefetched(self.alias, marks.get(item.id, []))}  # type: ignore[attr-defined]
        return items

    def count(self) -> int:
        # Asked only when a page is full (annotator.pagination), under the page's own condition.
        return int(fetch(self.alias, _count_sql(self.alias, *self._shape()), self._where_params())[0][0])


def _has_json_arrow(alias: str) -> bool:
    connection = connections[alias]
    if connection.vendor == "postgresql":
        return True
    return connection.vendor == "sqlite" and connection.Database.sqlite_version_info >= (3, 38)  # type: ignore[attr-defined]


def own_item_rows(*, user: Any, scene_id: int | None, open_only: bool) -> OwnItemRows | None:
    """A user's own item rows, for a user who sees their own work only; None where the database
    cannot read a JSON key as above (SQLite before 3.38): the caller keeps the ORM there."""
    rows = OwnItemRows(user=user, scene_id=scene_id, open_only=open_only)
    return rows if _has_json_arrow(rows.alias) else None
