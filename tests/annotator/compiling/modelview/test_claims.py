"""annotator.compiling.modelview.claims: the ModelView table as the queue of the `views` workers.
(The same with real worker processes, killed ones included: tests/annotator/compiling/test_tasks.py.)"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.utils import timezone

from annotator.compiling.modelview import model_views_drain, stored_names
from annotator.compiling.modelview.claims import (
    CLAIM_SIZE,
    mine,
    new_claim,
    views_claim_pending,
    views_reclaim_lost,
    views_signal_raise,
    views_signal_taken,
)
from annotator.compiling.modelview.render import _drain_batch, _new_names, _render
from annotator.compiling.tasks import views_recover
from annotator.models import ModelView
from tests.annotator.compiling.modelview.views import item_on, pending_views, textured_image

pytestmark = pytest.mark.django_db


def test_two_claims_take_disjoint_views_oldest_first(annotator: Any) -> None:
    # given ten pending views
    views = pending_views(item_on(textured_image(160, 120), annotator), 10)
    ModelView.objects.exclude(id__in=[v.id for v in views]).delete()
    # when two workers claim four each, then a third claims what is left
    a, b = new_claim(), new_claim()
    first, second = views_claim_pending(claim=a, limit=4), views_claim_pending(claim=b, limit=4)
    rest = views_claim_pending(claim=new_claim(), limit=4)
    # then each view was taken once, in id order, running under its claim with a lease
    ids = [v.id for v in views]
    assert [v.id for v in first + second + rest] == ids
    assert {v.claim for v in first} == {a} and {v.claim for v in second} == {b}
    assert all(v.state == "running" and v.attempts == 1 and v.lease_until > timezone.now() for v in first)
    assert views_claim_pending(claim=new_claim()) == []


def test_a_drain_renders_every_pending_view_once_and_goes_past_a_bad_one(annotator: Any) -> None:
    # given pending views of a good image and one of an image whose file is gone
    good = pending_views(item_on(textured_image(160, 120), annotator), 5)
    broken_image = textured_image(160, 120, seed=3)
    [broken] = pending_views(item_on(broken_image, annotator), 1)
    ModelView.objects.exclude(id__in=[v.id for v in [*good, broken]]).delete()
    broken_image.file.storage.delete(broken_image.file.name)
    # when a worker drains the queue
    assert model_views_drain() == (5, 1)
    # then each good view succeeded at its first attempt, the bad one failed saying why
    states = dict(ModelView.objects.values_list("id", "state"))
    assert [states[v.id] for v in good] == ["succeeded"] * 5
    broken.refresh_from_db()
    assert broken.state == "failed" and "file not found" in broken.error
    assert set(ModelView.objects.values_list("attempts", flat=True)) == {1}
    assert model_views_drain() == (0, 0)


def test_a_drain_goes_on_past_one_claim(annotator: Any) -> None:
    # given more pending views than one claim takes
    views = pending_views(item_on(textured_image(160, 120), annotator), CLAIM_SIZE + 3)
    ModelView.objects.exclude(id__in=[v.id for v in views]).delete()
    # when a worker drains the queue
    assert model_views_drain() == (CLAIM_SIZE + 3, 0)
    # then every view was rendered once, each with files of its own
    rows = list(ModelView.objects.order_by("id"))
    assert [(v.state, v.attempts, v.progress) for v in rows] == [("succeeded", 1, 100)] * (CLAIM_SIZE + 3)
    assert all(default_storage.exists(v.image.name) for v in rows)
    assert len({v.image.name for v in rows}) == len(rows)


def test_two_workers_draining_at_once_never_render_the_same_view(annotator: Any) -> None:
    # given pending views, and two workers that each claimed a batch before either rendered
    views = pending_views(item_on(textured_image(160, 120), annotator), 6)
    ModelView.objects.exclude(id__in=[v.id for v in views]).delete()
    a, b = new_claim(), new_claim()
    batch_a, batch_b = views_claim_pending(claim=a, limit=3), views_claim_pending(claim=b, limit=3)
    # when both render their batches
    assert _drain_batch(batch_a, a) == (3, 0)
    assert _drain_batch(batch_b, b) == (3, 0)
    # then each view was rendered by one of them, once, and holds the files that worker stored
    rows = {v.id: v for v in ModelView.objects.all()}
    assert {rows[v.id].claim for v in batch_a} == {a} and {rows[v.id].claim for v in batch_b} == {b}
    assert {(v.state, v.attempts) for v in rows.values()} == {("succeeded", 1)}
    assert all(default_storage.exists(v.image.name) for v in rows.values())


def test_a_batch_whose_worker_stalled_past_its_lease_is_claimed_again_and_the_stalled_run_writes_nothing(
    annotator: Any, django_capture_on_commit_callbacks: Any
) -> None:
    # given a worker that claimed a batch and then stopped renewing (stalled or killed)
    views = pending_views(item_on(textured_image(160, 120), annotator), 3)
    ModelView.objects.exclude(id__in=[v.id for v in views]).delete()
    stalled = new_claim()
    batch = views_claim_pending(claim=stalled, limit=3)
    ModelView.objects.filter(claim=stalled).update(lease_until=timezone.now() - timedelta(seconds=1))
    # when its lease runs out, another worker reclaims the batch and drains it
    assert views_reclaim_lost() == 3
    assert model_views_drain() == (3, 0)
    rendered = {v.id: v.image.name for v in ModelView.objects.all()}
    # ... and the stalled worker comes back and renders the batch it had claimed
    with django_capture_on_commit_callbacks(execute=True):
        assert _drain_batch(batch, stalled) == (0, 3)
    # then each view was rendered at its second attempt, keeps the second worker's files, and the
    # stalled run's files were deleted rather than left behind
    rows = list(ModelView.objects.all())
    assert {(v.state, v.attempts) for v in rows} == {("succeeded", 2)}
    assert {v.id: v.image.name for v in rows} == rendered
    assert all(default_storage.exists(name) for name in rendered.values())
    stale = [f"modelviews/{v.item_id}/1/view.jpg" for v in batch]
    assert not any(default_storage.exists(name) for name in stale)


def test_a_view_claimed_again_after_its_run_stored_files_and_died_leaves_only_the_files_its_row_names(
    annotator: Any, media_files: Callable[[], set[str]], django_capture_on_commit_callbacks: Any
) -> None:
    # given views rendered once, then queued again (a revision), and a run that claimed them, drew
    # and stored their new files and was killed before pointing the rows at them (never finished)
    views = pending_views(item_on(textured_image(160, 120), annotator), 3)
    ModelView.objects.exclude(id__in=[v.id for v in views]).delete()
    with django_capture_on_commit_callbacks(execute=True):
        assert model_views_drain() == (3, 0)
    ModelView.objects.update(state="pending")
    killed = new_claim()
    batch = views_claim_pending(claim=killed, limit=3)
    left = [_render(view, lambda _: None) for view in batch[:2]]
    ModelView.objects.filter(claim=killed).update(lease_until=timezone.now() - timedelta(seconds=1))
    assert {n for fields in left for n in _new_names(fields)} <= media_files()
    # when its lease runs out and another worker renders them again
    assert views_reclaim_lost() == 3
    with django_capture_on_commit_callbacks(execute=True):
        assert model_views_drain() == (3, 0)
    # then storage holds exactly the files the rows name: the killed run's are gone, folders too,
    # and so are the first rendering's, which the new one replaced
    rows = list(ModelView.objects.all())
    assert {(v.state, v.attempts) for v in rows} == {("succeeded", 3)}
    named = {name for view in rows for name in stored_names(view)}
    assert {n for n in media_files() if n.startswith("modelviews/")} == named
    assert not any(default_storage.exists(f"modelviews/{v.item_id}/2") for v in rows)


def test_deleting_a_view_removes_its_folder_with_what_a_killed_run_left_there(
    annotator: Any, media_files: Callable[[], set[str]], django_capture_on_commit_callbacks: Any
) -> None:
    # given a rendered view, and files a killed run stored for it before its item was deleted
    [view] = pending_views(item_on(textured_image(160, 120), annotator), 1)
    ModelView.objects.exclude(id=view.id).delete()
    with django_capture_on_commit_callbacks(execute=True):
        assert model_views_drain() == (1, 0)
    ModelView.objects.filter(id=view.id).update(state="pending")
    [claimed] = views_claim_pending(claim=new_claim())
    _render(claimed, lambda _: None)
    # when the item is deleted
    with django_capture_on_commit_callbacks(execute=True):
        view.item.delete()
    # then nothing of its view is left in storage
    assert not {n for n in media_files() if n.startswith("modelviews/")}


def test_views_whose_worker_vanished_go_back_to_pending_and_a_taken_over_run_writes_nothing(annotator: Any) -> None:
    # given views claimed by a worker that vanished (its lease ran out), one claimed by a live one,
    # and one whose workers vanished twice before
    views = pending_views(item_on(textured_image(160, 120), annotator), 4)
    ModelView.objects.exclude(id__in=[v.id for v in views]).delete()
    dead, live = new_claim(), new_claim()
    taken = views_claim_pending(claim=dead, limit=3)
    views_claim_pending(claim=live, limit=1)
    ModelView.objects.filter(claim=dead).update(lease_until=timezone.now() - timedelta(seconds=1))
    ModelView.objects.filter(id=taken[2].id).update(attempts=3)
    # when workers look for lost views (twice, as two workers would)
    assert views_reclaim_lost() == 2
    assert views_reclaim_lost() == 0
    # then the dead worker's views are pending again, the third-time one failed saying why, the
    # live worker's view is left alone
    rows = {v.id: v for v in ModelView.objects.all()}
    assert [(rows[v.id].state, rows[v.id].claim) for v in taken[:2]] == [("pending", "")] * 2
    assert rows[taken[2].id].state == "failed"
    assert rows[taken[2].id].error.startswith("its worker stopped 3 times while rendering it")
    assert rows[views[3].id].state == "running" and rows[views[3].id].claim == live
    # and the vanished run, should it come back, holds none of them any more
    assert not mine(taken[0].id, dead).exists()


def test_recovery_sends_a_message_for_views_that_waited_a_lease(
    annotator: Any, settings: Any, django_capture_on_commit_callbacks: Any, celery_eager: None
) -> None:
    # given a pending view nobody was told about (the broker was down when it was queued)
    [view] = pending_views(item_on(textured_image(160, 120), annotator), 1)
    ModelView.objects.exclude(id=view.id).delete()
    ModelView.objects.filter(id=view.id).update(updated_at=timezone.now() - timedelta(seconds=120))
    settings.SKYMARK_JOB_LEASE_S = 60
    # when a worker's recovery loop looks / then it sends a message, and the view is rendered
    views_recover()
    view.refresh_from_db()
    assert (view.state, view.attempts) == ("succeeded", 1)


def test_while_a_message_waits_for_a_worker_no_other_is_sent() -> None:
    # given no message waiting / when views are queued three times before a worker takes one
    sent = [views_signal_raise() for _ in range(3)]
    # then one message went out
    assert sent == [True, False, False]
    # and once a worker took it, the next views send again
    views_signal_taken()
    assert views_signal_raise() is True


def test_while_a_message_waits_a_compile_only_reads_the_signal(django_assert_num_queries) -> None:
    # given a message waiting for a worker
    assert views_signal_raise() is True
    # when views are queued again / then one read answers, and no UPDATE asks for the write lock
    with django_assert_num_queries(1) as seen:
        assert views_signal_raise() is False
    assert seen.captured_queries[0]["sql"].lstrip().upper().startswith("SELECT")
