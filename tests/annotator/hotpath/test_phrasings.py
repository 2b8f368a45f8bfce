"""annotator.hotpath.phrasings_of_task answers what the ORM query it replaces answers, on the same
rows, in the same order (runs on both databases)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db.models import F

from annotator import hotpath
from annotator.models import Item, Phrasing

pytestmark = pytest.mark.django_db


# ---- a compile's phrasings ----------------------------------------------------------------------


def test_a_tasks_phrasings_are_the_orms_in_every_case(django_assert_num_queries: Any) -> None:
    # given the seeded built-in phrasings, one of them disabled, and added ones (one disabled)
    # made out of id order against their template order
    task = Item.Task.TARGET_VISIBILITY
    builtins = list(Phrasing.objects.filter(task=task, builtin=True).order_by("-builtin_index"))
    assert len(builtins) >= 3
    Phrasing.objects.filter(id=builtins[1].id).update(enabled=False)
    for i, enabled in ((2, True), (1, False), (3, True)):
        Phrasing.objects.create(
            task=task, polarity=Phrasing.Polarity.NEGATIVE, text=f"Is {{target}} hidden {i}?", enabled=enabled
        )
    Phrasing.objects.create(task=Item.Task.TEMPORAL_GROUNDING, polarity="positive", text="When is {target} there?")
    for asked in (task, Item.Task.TEMPORAL_GROUNDING, Item.Task.REGION_INTERACTION):
        orm = list(
            Phrasing.objects.filter(task=asked, enabled=True)
            .order_by(F("builtin_index").asc(nulls_last=True), "id")
            .values_list("polarity", "text", "builtin_index", "id")
        )
        # when read by hand: then the same rows in the same order, in one query
        with django_assert_num_queries(1):
            assert hotpath.phrasings_of_task(task=asked) == orm
        assert orm
