"""Approved items of each answer format, for the scoring tests to freeze into releases."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from annotator.models import Item
from tests.factories import ItemFactory


@pytest.fixture
def approved_items() -> Callable[..., list[Item]]:
    """approved_items("yes", "no", count="7", time="4.0"): yes/no items with those keys, then a
    Zone Counting item keyed `count` and a Temporal Grounding item keyed `time` when given."""

    def make(*yes_no: str, count: str | None = None, time: str | None = None) -> list[Item]:
        items = [ItemFactory(state=Item.State.APPROVED, answer=key) for key in yes_no]
        for task, fmt, key in (
            (Item.Task.ZONE_COUNTING, Item.AnswerFormat.NUMBER, count),
            (Item.Task.TEMPORAL_GROUNDING, Item.AnswerFormat.TIMESTAMP, time),
        ):
            if key is not None:
                items.append(
                    ItemFactory(state=Item.State.APPROVED, task=task, options=[], answer=key, answer_format=fmt)
                )
        return items

    return make
