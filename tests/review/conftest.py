"""Items in review as the flow makes them: compiled from a visible region, submitted (which
assigns reviewers), then answered and decided through the services."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from annotator.compiling import lifecycle
from annotator.compiling.services import item_compile
from annotator.models import Item
from tests.factories import MarkFactory

TV = Item.Task.TARGET_VISIBILITY


@pytest.fixture
def submit(annotator) -> Callable[..., Item]:  # type: ignore[no-untyped-def]
    """submit(author=annotator, visible=True) -> a Target Visibility item in review (key "yes"
    when visible), assigned to the reviewers that exist now."""

    def make(author: Any = None, visible: bool = True) -> Item:
        author = author or annotator
        mark = MarkFactory(author=author, facts={"visible": visible})
        item = item_compile(user=author, task=TV, mark_ids=[mark.id])
        return lifecycle.item_submit(item=item, actor=author)

    return make


@pytest.fixture
def item(submit, reviewer, second_reviewer) -> Item:  # type: ignore[no-untyped-def]
    """An item in review (key "yes") assigned to rev1 and rev2."""
    return submit()
