"""The item lifecycle as the database enforces it, below the services: a state outside the graph,
a move that is not an edge of it, and a revision changed outside a revise are refused, on SQLite
and on PostgreSQL alike."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from annotator.compiling import lifecycle
from annotator.models import Item
from tests.factories import ItemFactory

pytestmark = pytest.mark.django_db

S = Item.State
LEGAL = {(source, target) for source, target, _ in lifecycle.TRANSITIONS.values()}


def _refused(item_id: int, **values: object) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Item.objects.filter(id=item_id).update(**values)


def test_an_unknown_state_is_refused() -> None:
    item = ItemFactory()
    _refused(item.id, state="published")
    with pytest.raises(IntegrityError), transaction.atomic():
        ItemFactory(state="limbo")
    assert Item.objects.get(id=item.id).state == S.DRAFT


@pytest.mark.parametrize(
    ("source", "target"),
    [(a, b) for a in S.values for b in S.values if a != b and (a, b) not in LEGAL],
)
def test_a_move_off_the_graph_is_refused_by_the_database(source: str, target: str) -> None:
    # given an item in `source`, written straight to the table (no service in the way)
    item = ItemFactory(state=source)
    # then the database refuses the move and the row stays as it was
    _refused(item.id, state=target)
    assert Item.objects.get(id=item.id).state == source


def test_the_edges_of_the_graph_pass_the_database() -> None:
    for source, target in sorted(LEGAL - {(S.REJECTED, S.DRAFT)}):
        # a draft is withdrawn only as a revision of a rejected item
        item = ItemFactory(state=source, revision=2 if (source, target) == (S.DRAFT, S.WITHDRAWN) else 1)
        Item.objects.filter(id=item.id).update(state=target)
        assert Item.objects.get(id=item.id).state == target


def test_a_first_draft_is_not_withdrawn_by_the_database() -> None:
    item = ItemFactory(state=S.DRAFT)
    _refused(item.id, state=S.WITHDRAWN)
    assert Item.objects.get(id=item.id).state == S.DRAFT


def test_the_revision_moves_only_with_a_revise() -> None:
    rejected = ItemFactory(state=S.REJECTED)
    # a revise without the next revision number, or with a jump, is refused
    _refused(rejected.id, state=S.DRAFT)
    _refused(rejected.id, state=S.DRAFT, revision=3)
    # and so is a revision changed in any other state
    approved = ItemFactory(state=S.APPROVED)
    _refused(approved.id, revision=2)
    # the revise itself passes
    Item.objects.filter(id=rejected.id).update(state=S.DRAFT, revision=2)
    assert Item.objects.filter(id=rejected.id, state=S.DRAFT, revision=2).exists()
    _refused(rejected.id, revision=1)


def test_a_revision_below_one_is_refused() -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        ItemFactory(revision=0)
