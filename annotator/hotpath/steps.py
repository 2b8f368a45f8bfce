"""A reviewer's blind step by hand: the assignment with its item and scene that the blind item page
and the blind answer read (and lock), the assignment a blind answer locks, the review a decision
locks, and the round's reviews a decision settles.

Why: in-process on the `--scale 0.05` seed on PostgreSQL (py-spy on the review steps' loop: queue,
blind item, answer, decision) these four reads, one query each, took about 45 % of the steps'
handler samples, nearly all of it Django building and compiling them (`_assigned`'s filters through
the item with the membership subquery and the exclusion, select_related over three or four tables,
the answered-review subquery): the decision's locked read alone spent 6.4 % of the samples in the
SQL compiler's setup. A blind item took 6.1 ms of CPU, an answer 8.6, a decision 12.5, against a
queue page's 4.0 (bench/README.md, "A review step's reads by hand").

Each answers what the ORM queryset in its docstring answers, with the same instances loaded (every
column of each table, as select_related reads them), locks the same rows on PostgreSQL (SQLite has
no row locks and Django emits none there), and is checked against that queryset on the same rows in
tests/annotator/hotpath/test_steps.py. The review app's models are reached through the item's
relations, as annotator.hotpath.queue does: the annotator app does not import the review app.
"""

from __future__ import annotations

import functools
from typing import Any

from django.db import connections, router
from django.db.transaction import TransactionManagementError

from annotator.hotpath import _in_member_projects, _q
from annotator.hotpath.rows import fetch, field_names, instance
from annotator.models import Item, Scene, Video


def _assignment_model() -> Any:
    return Item._meta.get_field("review_assignments").related_model


def _review_model() -> Any:
    return Item._meta.get_field("reviews").related_model


def _columns(alias: str, models: tuple[Any, ...]) -> str:
    """Every column of each model, in its field order: what select_related reads of each table."""
    return ", ".join(_q(alias, model, name) for model in models for name in field_names(model))


def _joins(alias: str, first: Any, depth: int) -> str:
    """`first` INNER JOIN its item, the item's scene and the scene's video, as far as `depth` (1: the
    item): the relations select_related follows are all non-null, so the ORM joins them inner too."""
    steps = ((first, "item", Item), (Item, "scene", Scene), (Scene, "video", Video))[:depth]
    return _q(alias, first) + "".join(
        f" INNER JOIN {_q(alias, to)} ON {_q(alias, frm, fk)} = {_q(alias, to, 'id')}" for frm, fk, to in steps
    )


def _lock(alias: str, models: tuple[Any, ...]) -> str:
    """FOR UPDATE OF these tables where the database locks rows (PostgreSQL), as
    select_for_update(of=...) writes it; nothing on SQLite, where Django writes nothing either."""
    connection = connections[alias]
    if not connection.features.has_select_for_update_of:
        return ""
    if not connection.in_atomic_block:  # Django's own check, so a caller misses no lock silently
        raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
    return " FOR UPDATE OF " + ", ".join(_q(alias, model) for model in models)


def _loaded(alias: str, models: tuple[Any, ...], row: tuple[Any, ...]) -> list[Any]:
    """One instance of each model from its columns in the row; each made the next one's relation
    (the assignment's item, the item's scene, the scene's video), as select_related leaves them."""
    made, start, connection = [], 0, connections[alias]
    for model in models:
        names = field_names(model)
        made.append(instance(alias, model, names, row[start : start + len(names)], connection))
        start += len(names)
    for holder, held, name in zip(made, made[1:], ("item", "scene", "video"), strict=False):
        setattr(holder, name, held)
    return made


def _step_models(video: bool) -> tuple[Any, ...]:
    """The tables a step's read loads, in the row's order."""
    return (_assignment_model(), Item, Scene, Video) if video else (_assignment_model(), Item, Scene)


@functools.cache
def _step_sql(alias: str, members_only: bool, video: bool, answered: bool) -> str:
    ra, review = _assignment_model(), _review_model()
    models = _step_models(video)
    extra = ""
    if answered:
        extra = (
            f", (SELECT {_q(alias, review, 'id')} FROM {_q(alias, review)} "  # noqa: S608 - see _q
            f"WHERE {_q(alias, review, 'item')} = {_q(alias, ra, 'item')} "
            f"AND {_q(alias, review, 'revision')} = {_q(alias, ra, 'revision')} "
            f"AND {_q(alias, review, 'reviewer')} = %s LIMIT 1)"
        )
    where = (
        f"{_q(alias, ra, 'item')} = %s AND {_q(alias, ra, 'reviewer')} = %s "
        f"AND {_q(alias, ra, 'revision')} = {_q(alias, Item, 'revision')}"
        + (_in_member_projects(alias) if members_only else "")
        + f" AND NOT ({_q(alias, Item, 'author')} = %s)"
    )
    return (
        f"SELECT {_columns(alias, models)}{extra} FROM {_joins(alias, ra, len(models) - 1)} "  # noqa: S608 - see _q
        f"WHERE {where} ORDER BY {_q(alias, ra, 'id')} LIMIT 1"
    )


def assignment_of_step(
    *, reviewer: Any, item_id: int, video: bool = False, answered: bool = False, lock: bool = False
) -> Any | None:
    """The reviewer's assignment on the item's current revision, if the item is of their projects
    (any project for a superuser) and not theirs, with `assignment.item.scene` loaded (and
    `.scene.video` with `video`), and with `answered` the id of their review of that revision as
    `assignment.review_id` (None when they have not answered); with `lock` the item's row locked (a
    blind answer's); None when there is no such assignment. As the ORM (review.reviewing.selectors):

        ReviewAssignment.objects.filter(reviewer=reviewer, item_id=item_id, revision=F("item__revision"))
            .filter(item__scene__project_id__in=<their projects>)                    # none for a superuser
            .exclude(item__author=reviewer)
            .select_related("item__scene" or "item__scene__video")
            .annotate(review_id=Subquery(Review.objects.filter(item_id=OuterRef("item_id"),
                revision=OuterRef("revision"), reviewer=reviewer).values("id")[:1]))   # with `answered`
            .select_for_update(of=("item",))                                          # with `lock`
            .first()
    """
    ra = _assignment_model()
    alias = router.db_for_write(ra) if lock else router.db_for_read(ra)
    members_only = not getattr(reviewer, "is_superuser", False)
    params = [reviewer.pk] if answered else []
    params += [item_id, reviewer.pk] + ([reviewer.pk] if members_only else []) + [reviewer.pk]
    sql = _step_sql(alias, members_only, video, answered) + (_lock(alias, (Item,)) if lock else "")
    rows = fetch(alias, sql, params)
    if not rows:
        return None
    assignment = _loaded(alias, _step_models(video), rows[0])[0]
    if answered:
        assignment.review_id = rows[0][-1]
    return assignment


@functools.cache
def _assignment_locked_sql(alias: str) -> str:
    ra = _assignment_model()
    return (
        f"SELECT {_columns(alias, (ra, Item))} FROM {_joins(alias, ra, 1)} "  # noqa: S608 - see _q
        f"WHERE {_q(alias, ra, 'item')} = %s AND {_q(alias, ra, 'reviewer')} = %s "
        f"AND {_q(alias, ra, 'revision')} = {_q(alias, Item, 'revision')} ORDER BY {_q(alias, ra, 'id')} LIMIT 1"
    )


def assignment_locked(*, reviewer_id: int, item_id: int) -> Any | None:
    """The reviewer's assignment on the item's current revision with `assignment.item`, the item's
    row locked (a blind answer's); None when there is none. As the ORM (review.reviewing.services):

        ReviewAssignment.objects.filter(item_id=item_id, reviewer_id=reviewer_id, revision=F("item__revision"))
            .select_related("item").select_for_update(of=("item",)).first()
    """
    ra = _assignment_model()
    alias = router.db_for_write(ra)
    sql = _assignment_locked_sql(alias) + _lock(alias, (Item,))
    rows = fetch(alias, sql, [item_id, reviewer_id])
    return _loaded(alias, (ra, Item), rows[0])[0] if rows else None


@functools.cache
def _review_locked_sql(alias: str, members_only: bool) -> str:
    review = _review_model()
    return (
        f"SELECT {_columns(alias, (review, Item, Scene, Video))} FROM {_joins(alias, review, 3)} "  # noqa: S608
        f"WHERE {_q(alias, review, 'reviewer')} = %s"
        + (_in_member_projects(alias) if members_only else "")
        + f" AND {_q(alias, review, 'id')} = %s ORDER BY {_q(alias, review, 'id')} LIMIT 1"
    )


def review_locked(*, reviewer: Any, review_id: int) -> Any | None:
    """The reviewer's own review, when its item is of their projects (any for a superuser), with
    `review.item.scene.video` loaded, the review's and the item's rows locked (a decision's); None
    otherwise. As the ORM (review.reviewing.services):

        reviews_of_reviewer(reviewer=reviewer).filter(id=review_id)
            .select_related("item__scene__video").select_for_update(of=("self", "item")).first()
    """
    review = _review_model()
    alias = router.db_for_write(review)
    members_only = not getattr(reviewer, "is_superuser", False)
    sql = _review_locked_sql(alias, members_only) + _lock(alias, (review, Item))
    params = [reviewer.pk] + ([reviewer.pk] if members_only else []) + [review_id]
    rows = fetch(alias, sql, params)
    return _loaded(alias, (review, Item, Scene, Video), rows[0])[0] if rows else None


# The name of a round's reviews' extra column, as review.reviewing.services._settle annotates it.
ASSIGNED = "assigned"


@functools.cache
def _round_sql(alias: str) -> str:
    ra, review = _assignment_model(), _review_model()
    quote = connections[alias].ops.quote_name
    u = quote("U0")  # the subquery's own alias of the assignments' table, as the ORM names it

    def sub(name: str) -> str:
        return f"{u}.{quote(ra._meta.get_field(name).column)}"

    counted = (
        f"(SELECT COUNT({sub('id')}) FROM {_q(alias, ra)} {u} "  # noqa: S608 - see _q
        f"WHERE {sub('item')} = {_q(alias, review, 'item')} AND {sub('revision')} = {_q(alias, review, 'revision')} "
        f"AND NOT {sub('gold')} GROUP BY {sub('item')})"
    )
    return (
        f"SELECT {_columns(alias, (review,))}, {counted} AS {quote(ASSIGNED)} FROM {_q(alias, review)} "  # noqa: S608
        f"WHERE {_q(alias, review, 'item')} = %s AND {_q(alias, review, 'revision')} = %s "
        f"AND NOT {_q(alias, review, 'gold')} ORDER BY {_q(alias, review, 'id')}"
    )


def reviews_of_round(*, item_id: int, revision: int) -> list[Any]:
    """The reviews (not gold checks) of one revision of the item, in id order (the model's
    ordering), each with the number of reviewers assigned to that revision (not gold) as
    `review.assigned`, None when there are none. As the ORM (review.reviewing.services._settle):

        assigned = ReviewAssignment.objects.filter(item_id=OuterRef("item_id"), revision=OuterRef("revision"),
                                                   gold=False)
        counted = assigned.order_by().values("item_id").annotate(n=Count("id")).values("n")
        Review.objects.filter(item_id=item_id, revision=revision, gold=False).annotate(assigned=Subquery(counted))
    """
    review = _review_model()
    alias = router.db_for_read(review)
    names, made, connection = field_names(review), [], connections[alias]
    for row in fetch(alias, _round_sql(alias), [item_id, revision]):
        one = instance(alias, review, names, row[:-1], connection)
        setattr(one, ASSIGNED, row[-1])
        made.append(one)
    return made
