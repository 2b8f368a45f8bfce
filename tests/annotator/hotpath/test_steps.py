"""annotator.hotpath.steps answers what the ORM querysets in its docstrings answer, on the same rows,
for every case the rule tells apart: the reviewer's assignment or someone else's, this revision or an
earlier one, their projects or another, their own item, a superuser, answered or not; the same
instances loaded (every field of each) and the same rows locked on PostgreSQL. Runs on both
databases."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from django.db import connection, transaction
from django.db.models import Count, F, Model, OuterRef, QuerySet, Subquery
from django.db.transaction import TransactionManagementError

from annotator.access.scopes import in_member_projects
from annotator.hotpath.steps import assignment_locked, assignment_of_step, review_locked, reviews_of_round
from annotator.models import Item, Scene
from review.models import Review, ReviewAssignment
from review.reviewing.selectors import reviews_of_reviewer
from tests.factories import ItemFactory, ProjectFactory, ReviewerFactory, ReviewFactory, SceneFactory

pytestmark = pytest.mark.django_db


def _assigned_orm(*, reviewer: Any, item_id: int) -> QuerySet[ReviewAssignment]:
    """The rule as the ORM read it before (review.reviewing.selectors, the comment on its reads)."""
    mine = ReviewAssignment.objects.filter(reviewer=reviewer, item_id=item_id, revision=F("item__revision"))
    return in_member_projects(user=reviewer, qs=mine, path="item__scene__project").exclude(item__author=reviewer)


def _values(obj: Model | None) -> dict[str, Any] | None:
    """Every column's value as loaded (a relation's id, not the related row: reading that would load it)."""
    return None if obj is None else {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def _team() -> dict[str, Any]:
    reviewer, other = ReviewerFactory(), ReviewerFactory()
    scene = SceneFactory(project=ProjectFactory(members={"reviewer": [reviewer, other]}))
    left = SceneFactory(project=ProjectFactory(members={"reviewer": [other]}))  # the reviewer is no member there
    superuser = ReviewerFactory(is_superuser=True)
    items: list[Item] = []

    def assign(who: Any, on: Scene = scene, author: Any = None, **kw: Any) -> Item:
        made = {"author": author} if author else {}
        item = ItemFactory(scene=on, state=Item.State.IN_REVIEW, revision=kw.pop("item_revision", 1), **made)
        ReviewAssignment.objects.create(item=item, revision=kw.pop("revision", 1), reviewer=who, **kw)
        items.append(item)
        return item

    for who in (reviewer, other, superuser):
        assign(who)  # live
        answered = assign(who, gold=True)  # a gold check, answered
        ReviewFactory(item=answered, reviewer=who, revision=1, gold=True)
        earlier = assign(who, revision=1, item_revision=2)  # an earlier round, answered then
        ReviewFactory(item=earlier, reviewer=who, revision=1)
        outside = assign(who, on=left)  # a project they left (or never joined), answered while a member
        ReviewFactory(item=outside, reviewer=who, revision=1)
        assign(who, author=who)  # their own item
    return {"people": [reviewer, other, superuser], "items": items}


def test_a_steps_assignment_is_the_orms_in_every_case(django_assert_num_queries: Any) -> None:
    team = _team()
    seen = set()
    for who in team["people"]:
        for item in team["items"]:
            answered = Review.objects.filter(item_id=OuterRef("item_id"), revision=OuterRef("revision"), reviewer=who)
            for video in (False, True):
                for with_review in (False, True):
                    orm = _assigned_orm(reviewer=who, item_id=item.id)
                    orm = orm.select_related("item__scene__video" if video else "item__scene")
                    if with_review:
                        orm = orm.annotate(review_id=Subquery(answered.values("id")[:1]))
                    expected = orm.first()
                    with transaction.atomic(), django_assert_num_queries(1):
                        # locked or not, the same read (the lock: test_the_locked_reads_lock_the_orms_rows)
                        fast = assignment_of_step(
                            reviewer=who, item_id=item.id, video=video, answered=with_review, lock=with_review
                        )
                        # what select_related loaded is there, with no query more
                        loaded = fast and (fast.item, fast.item.scene, fast.item.scene.video if video else None)
                    assert _values(fast) == _values(expected)
                    seen.add(expected is not None)
                    if expected is None:
                        continue
                    assert loaded
                    assert _values(fast.item) == _values(expected.item)
                    assert _values(fast.item.scene) == _values(expected.item.scene)
                    if video:
                        assert _values(fast.item.scene.video) == _values(expected.item.scene.video)
                    else:
                        assert "video" not in fast.item.scene._state.fields_cache
                    if with_review:
                        assert fast.review_id == expected.review_id
                        seen.add(("answered", expected.review_id is not None))
                    else:
                        assert not hasattr(fast, "review_id")
    # found and not found, answered and not, all among the cases
    assert seen == {True, False, ("answered", True), ("answered", False)}


def test_a_blind_answers_locked_assignment_is_the_orms() -> None:
    team = _team()
    for who in team["people"]:
        for item in team["items"]:
            with transaction.atomic():
                orm = ReviewAssignment.objects.filter(item_id=item.id, reviewer_id=who.pk, revision=F("item__revision"))
                expected = orm.select_related("item").select_for_update(of=("item",)).first()
                fast = assignment_locked(reviewer_id=who.pk, item_id=item.id)
            assert _values(fast) == _values(expected)
            if expected is not None:
                assert _values(fast.item) == _values(expected.item)


def test_a_decisions_locked_review_is_the_orms() -> None:
    team = _team()
    seen = set()
    for who in team["people"]:
        for review in Review.objects.all():
            with transaction.atomic():
                orm = reviews_of_reviewer(reviewer=who).filter(id=review.id).select_related("item__scene__video")
                expected = orm.select_for_update(of=("self", "item")).first()
                fast = review_locked(reviewer=who, review_id=review.id)
            assert _values(fast) == _values(expected)
            seen.add((review.reviewer_id == who.pk, expected is not None))
            if expected is not None:
                assert _values(fast.item) == _values(expected.item)
                assert _values(fast.item.scene) == _values(expected.item.scene)
                assert _values(fast.item.scene.video) == _values(expected.item.scene.video)
    # their own reviews found, one of theirs outside their projects not, and nobody else's
    assert seen == {(True, True), (True, False), (False, False)}


def _lock_taken(table: str, row_id: int) -> bool:
    """Whether another session finds the row locked (FOR UPDATE NOWAIT fails at once)."""
    params = connection.get_connection_params()
    for django_only in ("cursor_factory", "context", "prepare_threshold"):
        params.pop(django_only, None)
    with psycopg.connect(**params, autocommit=True) as other:
        try:
            other.execute(f'SELECT 1 FROM "{table}" WHERE id = %s FOR UPDATE NOWAIT', [row_id])  # noqa: S608
        except psycopg.errors.LockNotAvailable:
            return True
    return False


@pytest.mark.django_db(transaction=True)
def test_the_locked_reads_lock_the_orms_rows_on_postgresql() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("SQLite has no row locks (Django writes none there either)")
    reviewer = ReviewerFactory()
    item = ItemFactory(scene=SceneFactory(project=ProjectFactory(members={"reviewer": [reviewer]})))
    Item.objects.filter(id=item.id).update(state=Item.State.IN_REVIEW)
    assignment = ReviewAssignment.objects.create(item=item, revision=1, reviewer=reviewer)
    review = ReviewFactory(item=item, reviewer=reviewer, revision=1)
    with transaction.atomic():
        assert assignment_locked(reviewer_id=reviewer.pk, item_id=item.id) is not None
        assert _lock_taken("annotator_item", item.id)
        assert not _lock_taken("review_reviewassignment", assignment.id)  # of=("item",): the item only
    assert not _lock_taken("annotator_item", item.id)
    with transaction.atomic():
        assert assignment_of_step(reviewer=reviewer, item_id=item.id, lock=True) is not None
        assert _lock_taken("annotator_item", item.id)
        assert not _lock_taken("review_reviewassignment", assignment.id)
        assert not _lock_taken("annotator_scene", item.scene_id)
    with transaction.atomic():
        assert assignment_of_step(reviewer=reviewer, item_id=item.id) is not None
        assert not _lock_taken("annotator_item", item.id)  # unlocked unless asked
    with transaction.atomic():
        assert review_locked(reviewer=reviewer, review_id=review.id) is not None
        assert _lock_taken("review_review", review.id) and _lock_taken("annotator_item", item.id)
        assert not _lock_taken("annotator_scene", item.scene_id)
    # outside a transaction a lock would end with its statement: refused, as Django refuses it
    with pytest.raises(TransactionManagementError):
        review_locked(reviewer=reviewer, review_id=review.id)


def test_a_rounds_reviews_are_the_orms(django_assert_num_queries: Any) -> None:
    reviewers = [ReviewerFactory() for _ in range(4)]
    item, bare = ItemFactory(state=Item.State.IN_REVIEW, revision=2), ItemFactory(state=Item.State.IN_REVIEW)
    rounds = ((1, 0, False), (1, 1, False), (2, 0, False), (2, 1, False), (2, 2, False), (2, 3, True))
    for revision, who, gold in rounds:
        ReviewAssignment.objects.create(item=item, revision=revision, reviewer=reviewers[who], gold=gold)
    for revision, who, gold in ((1, 0, False), (2, 1, False), (2, 0, False), (2, 3, True)):
        ReviewFactory(item=item, revision=revision, reviewer=reviewers[who], gold=gold)
    ReviewFactory(item=bare, revision=1, reviewer=reviewers[0])  # reviewed with no assignment left
    assigned = ReviewAssignment.objects.filter(item_id=OuterRef("item_id"), revision=OuterRef("revision"), gold=False)
    counted = assigned.order_by().values("item_id").annotate(n=Count("id")).values("n")
    found = []
    for one, revision in ((item, 1), (item, 2), (item, 3), (bare, 1)):
        orm = list(
            Review.objects.filter(item_id=one.id, revision=revision, gold=False).annotate(assigned=Subquery(counted))
        )
        with django_assert_num_queries(1):
            fast = reviews_of_round(item_id=one.id, revision=revision)
        assert [_values(r) for r in fast] == [_values(r) for r in orm]
        assert [r.assigned for r in fast] == [r.assigned for r in orm]
        found.append([r.assigned for r in fast])
    # two reviewers of round 1, three of round 2 (the gold check not counted), none assigned to `bare`
    assert found == [[2], [3, 3], [], [None]]
