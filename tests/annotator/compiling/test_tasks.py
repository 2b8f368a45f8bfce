"""The model view's Celery task: a job whose item is gone ends at once, quietly, without a retry."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from annotator.compiling.services import item_compile
from annotator.compiling.tasks import model_view_task
from annotator.models import Item, ModelView
from tests.annotator.compiling.test_compile_each_task import CASES, Marks

pytestmark = pytest.mark.django_db
T = Item.Task


def test_a_view_job_for_a_deleted_item_ends_at_once_without_retry(
    annotator: Any, celery_eager: None, caplog: Any
) -> None:
    # given an item whose model view job was queued, then the item deleted before a worker took it
    marks, _ = CASES[T.TARGET_VISIBILITY][0](Marks(annotator))
    item = item_compile(user=annotator, task=T.TARGET_VISIBILITY, mark_ids=[marks[0].id])
    view_id = ModelView.objects.get(item=item).id
    Item.objects.filter(id=item.id).delete()
    assert not ModelView.objects.filter(id=view_id).exists()
    # when the job runs (twice: a redelivered message)
    with caplog.at_level(logging.INFO, logger="annotator.compiling.modelview"):
        results = [model_view_task.apply(args=[view_id]) for _ in range(2)]
    # then it succeeds at once, never retried, logging at info and nothing worse
    assert [(r.state, r.result) for r in results] == [("SUCCESS", None)] * 2
    records = [r for r in caplog.records if r.name.startswith("annotator.compiling.modelview")]
    assert [r.levelno for r in records] == [logging.INFO, logging.INFO]
    assert "no longer exists" in records[0].getMessage()
