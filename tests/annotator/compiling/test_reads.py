"""annotator.compiling.reads: an item records what it read of its marks (the facts its template
declares plus those it looked up), and a mark edit stales only the items that read what changed."""

from __future__ import annotations

import pytest

from annotator.compiling import lifecycle
from annotator.compiling.services import item_compile
from annotator.marking.services import mark_update
from annotator.models import Item, Mark
from tests.factories import MarkFactory

pytestmark = pytest.mark.django_db

T = Item.Task


def _drafts(annotator) -> tuple[Mark, Item, Item]:  # type: ignore[no-untyped-def]
    mark = MarkFactory(author=annotator, facts={"visible": True, "first_seen_s": 0.5})
    seen = item_compile(user=annotator, task=T.TARGET_VISIBILITY, mark_ids=[mark.id])
    when = item_compile(user=annotator, task=T.TEMPORAL_GROUNDING, mark_ids=[mark.id])
    return mark, seen, when


def _edit(mark: Mark, **changes: object) -> None:
    current = Mark.objects.select_related("satellite_image").get(id=mark.id)
    mark_update(mark=current, version=current.version, changes=changes)


def _stale(*items: Item) -> list[bool]:
    return [Item.objects.get(id=i.id).stale for i in items]


def test_each_item_records_the_facts_it_read(annotator) -> None:
    mark, seen, when = _drafts(annotator)
    assert seen.provenance["reads"] == {str(mark.id): ["visible"]}
    # Temporal Grounding declares first_seen_s and also looks at 'visible' (a region never seen has no time)
    assert when.provenance["reads"] == {str(mark.id): ["first_seen_s", "visible"]}


def test_a_fact_another_task_reads_does_not_stale_a_draft(annotator) -> None:
    mark, seen, when = _drafts(annotator)
    _edit(mark, facts={"visible": True, "first_seen_s": 0.9})
    assert _stale(seen, when) == [False, True]
    # and the untouched draft goes to review: nothing it read changed
    lifecycle.item_submit(item=seen, actor=annotator)
    assert Item.objects.get(id=seen.id).state == Item.State.IN_REVIEW


def test_a_fact_no_item_reads_stales_nothing(annotator) -> None:
    mark, seen, when = _drafts(annotator)
    _edit(mark, facts={"visible": True, "first_seen_s": 0.5, "note": "by the kerb"})
    assert _stale(seen, when) == [False, False]


def test_a_fact_both_read_and_the_shape_stale_both(annotator) -> None:
    mark, seen, when = _drafts(annotator)
    _edit(mark, facts={"visible": True})  # first_seen_s cleared: Temporal Grounding falls back to the start time
    assert _stale(seen, when) == [False, True]
    mark2, seen2, when2 = _drafts(annotator)
    _edit(mark2, geometry={"type": "Polygon", "coordinates": [[[12, 12], [60, 10], [60, 40], [10, 40]]]})
    assert _stale(seen2, when2) == [True, True]


def test_items_compiled_before_reads_were_kept_stale_on_any_change(annotator) -> None:
    mark, seen, _ = _drafts(annotator)
    Item.objects.filter(id=seen.id).update(provenance={**seen.provenance, "reads": None})
    _edit(mark, facts={"visible": True, "first_seen_s": 0.5, "note": "x"})
    assert _stale(seen) == [True]


def test_twelve_drafts_filled_task_by_task_stay_fresh(annotator) -> None:
    # given a region with drafts of two tasks compiled one after the other, as an annotator
    # fills in facts task by task: each new fact goes in without staling the drafts before it
    region = MarkFactory(author=annotator, facts={"visible": True})
    drafts = [item_compile(user=annotator, task=T.TARGET_VISIBILITY, mark_ids=[region.id], seed=s) for s in range(6)]
    _edit(region, facts={"visible": True, "first_seen_s": 0.4})
    drafts += [item_compile(user=annotator, task=T.TEMPORAL_GROUNDING, mark_ids=[region.id], seed=s) for s in range(6)]
    _edit(region, facts={"visible": True, "first_seen_s": 0.4, "note": "gate"})
    assert sum(_stale(*drafts)) == 0
