"""`manage.py render_model_views`: items compiled before model views existed get theirs, rendered
here (--sync) or queued; a dry run writes nothing; failed views are tried again only with --failed;
a second run finds nothing to do."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command

from annotator.compiling.services import item_compile
from annotator.models import Item, ModelView
from tests.annotator.compiling.test_compile_each_task import CASES, Marks

pytestmark = pytest.mark.django_db
T = Item.Task


def _items(annotator: Any, *tasks: str) -> list[Item]:
    """Items of these tasks whose model views never existed (compiled before they did)."""
    items = []
    for task in tasks:
        marks, _ = CASES[task][0](Marks(annotator))
        items.append(item_compile(user=annotator, task=task, mark_ids=[m.id for m in marks], seed=3))
    ModelView.objects.filter(item__in=items).delete()
    return items


def _run(*args: str) -> str:
    out = StringIO()
    call_command("render_model_views", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_sync_renders_the_missing_views_and_a_second_run_does_nothing(annotator: Any) -> None:
    # given two items without model views
    items = _items(annotator, T.TARGET_VISIBILITY, T.SCENE_ASSOCIATION)
    # when the command renders them here
    out = _run("--sync")
    # then each has a stored view: the image, and the options of the lettered one
    assert "2 model view(s) rendered, 0 failed" in out
    views = {v.item_id: v for v in ModelView.objects.filter(item__in=items)}
    assert {v.state for v in views.values()} == {"succeeded"}
    assert all(default_storage.exists(v.image.name) for v in views.values())
    assert [o["option"] for o in views[items[1].id].option_images] == ["A", "B", "C", "D"]
    # and running it again changes nothing
    assert _run("--sync") == "every selected item has its model view (or has one queued)\n"
    assert {v.id: v.attempts for v in ModelView.objects.all()} == {v.id: 1 for v in views.values()}


def test_without_sync_the_views_are_queued_once(annotator: Any, django_capture_on_commit_callbacks: Any) -> None:
    items = _items(annotator, T.TARGET_VISIBILITY, T.ZONE_COUNTING)
    with django_capture_on_commit_callbacks() as queued:
        assert "queued 2 model view(s) for the workers" in _run()
    assert len(queued) == 2  # one message per transaction (the command takes each item in its own)
    assert set(ModelView.objects.filter(item__in=items).values_list("state", flat=True)) == {"pending"}
    # a second run leaves the queued views to the workers
    with django_capture_on_commit_callbacks() as again:
        _run()
    assert again == []


def test_a_dry_run_lists_and_writes_nothing(annotator: Any, django_capture_on_commit_callbacks: Any) -> None:
    [item] = _items(annotator, T.TARGET_VISIBILITY)
    with django_capture_on_commit_callbacks() as queued:
        out = _run("--sync", "--dry-run")
    assert f"{item.uid} target_visibility (draft): model view missing" in out
    assert "1 model view(s) would be rendered" in out
    assert not ModelView.objects.exists() and queued == []


def test_failed_views_are_tried_again_only_with_failed(annotator: Any) -> None:
    # given an item whose view failed (say the image was broken then, and fixed since)
    [item] = _items(annotator, T.TARGET_VISIBILITY)
    ModelView.objects.create(item=item, state="failed", error="map.png: cannot be read as an image", attempts=1)
    # then a plain run leaves it alone
    assert _run("--sync").startswith("every selected item has its model view")
    assert ModelView.objects.get(item=item).state == "failed"
    # and --failed renders it
    assert "1 model view(s) rendered, 0 failed" in _run("--sync", "--failed")
    view = ModelView.objects.get(item=item)
    assert (view.state, view.error, view.attempts) == ("succeeded", "", 2)


def test_filters_by_scene_and_state_and_reports_failures(annotator: Any) -> None:
    first, second = _items(annotator, T.TARGET_VISIBILITY, T.TARGET_VISIBILITY)
    Item.objects.filter(id=second.id).update(state="in_review")
    assert "0 failed" in _run("--sync", "--scene", str(first.scene_id), "--state", "draft")
    assert ModelView.objects.filter(item=first).exists() and not ModelView.objects.filter(item=second).exists()
    # a view that cannot render is reported and the command fails
    image = second.marks.first().satellite_image  # type: ignore[union-attr]
    with default_storage.open(image.file.name, "wb") as fh:
        fh.write(b"no longer a picture")
    with pytest.raises(CommandError, match="1 model view"):
        _run("--sync", "--state", "in_review")
    assert ModelView.objects.get(item=second).state == "failed"
