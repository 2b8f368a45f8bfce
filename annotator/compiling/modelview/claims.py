"""Who renders which model view: the ModelView table is the queue. A worker claims pending rows
(a few at a time, in id order) under a claim token and a lease; its heartbeat renews the lease of
every row of its claim while it renders; a worker that vanishes stops renewing, and once the lease
runs out the rows go back to pending (views_reclaim_lost, from every worker's recovery loop) and
are rendered again. A run whose rows were taken over writes nothing more to them (`mine`).

A message on the `views` queue only says "there are pending views": thousands of views compiled at
once are a few messages, not one each, so the broker's queue stays short."""

from __future__ import annotations

import logging
import uuid

from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from annotator.models import ModelView, ViewsSignal
from annotator.processing.lease import lease_end, lease_live

log = logging.getLogger(__name__)
S = ModelView.State
# Views claimed at once: few enough that a worker killed mid-claim costs little rendering again.
CLAIM_SIZE = 8
# Workers lost on a view (killed, out of memory) before it ends `failed` rather than pending again.
MAX_WORKERS_LOST = 3


def new_claim() -> str:
    return uuid.uuid4().hex


def mine(view_id: int, claim: str) -> QuerySet[ModelView]:
    """The view's row while this claim still holds it."""
    return ModelView.objects.filter(id=view_id, state=S.RUNNING, claim=claim)


def claim_renew(claim: str) -> int:
    """Extend the lease of every row of the claim still running (the heartbeat)."""
    return ModelView.objects.filter(claim=claim, state=S.RUNNING).update(lease_until=lease_end())


def _take(ids: list[int], claim: str, *, states: list[str]) -> list[ModelView]:
    now = timezone.now()
    ModelView.objects.filter(id__in=ids, state__in=states).filter(
        ~Q(state=S.RUNNING) | Q(lease_until__isnull=True) | Q(lease_until__lt=now)
    ).update(
        state=S.RUNNING,
        claim=claim,
        lease_until=lease_end(),
        attempts=F("attempts") + 1,
        progress=0,
        error="",
        started_at=now,
        finished_at=None,
        updated_at=now,
    )
    taken = ModelView.objects.filter(id__in=ids, claim=claim, state=S.RUNNING)
    return list(taken.select_related("item__scene__video").order_by("id"))


def views_claim_pending(*, claim: str, limit: int = CLAIM_SIZE) -> list[ModelView]:
    """Take up to `limit` pending views, oldest first; rows another worker takes at the same moment
    are skipped (PostgreSQL: SKIP LOCKED; SQLite: one writer at a time). Returns the rows taken."""
    with transaction.atomic():
        pending = ModelView.objects.select_for_update(skip_locked=True).filter(state=S.PENDING).order_by("id")
        ids = list(pending.values_list("id", flat=True)[:limit])
        return _take(ids, claim, states=[S.PENDING]) if ids else []


def view_claim_one(*, view_id: int, claim: str) -> ModelView | None:
    """Take one view unless it succeeded or a live worker holds it (pending, failed, or running
    under a lease that ran out): a sync render, an old single-view message. None otherwise."""
    with transaction.atomic():
        view = ModelView.objects.select_for_update().filter(id=view_id).first()
        if view is None or view.state == S.SUCCEEDED or (view.state == S.RUNNING and lease_live(view.lease_until)):
            return None
        taken = _take([view_id], claim, states=[S.PENDING, S.FAILED, S.RUNNING])
        return taken[0] if taken else None


def views_pending() -> bool:
    return ModelView.objects.filter(state=S.PENDING).exists()


def views_reclaim_lost() -> int:
    """Put back to pending the running views whose lease ran out (their worker vanished), each once
    even when several workers look at once; a view whose workers vanished MAX_WORKERS_LOST times
    (counted by its attempts) ends `failed` saying so. Returns how many went back to pending."""
    lost = ModelView.objects.filter(state=S.RUNNING).filter(
        Q(lease_until__lt=timezone.now()) | Q(lease_until__isnull=True)
    )
    back = 0
    for view in lost.only("id", "claim", "attempts", "lease_until"):
        change: dict[str, object]
        if view.attempts >= MAX_WORKERS_LOST:
            error = (
                f"its worker stopped {view.attempts} times while rendering it (killed, or out of memory on "
                "this image); render it again once the worker has more memory"
            )
            change = {"state": S.FAILED, "error": error, "finished_at": timezone.now()}
        else:
            change = {"state": S.PENDING, "progress": 0}
        same = mine(view.id, view.claim).filter(attempts=view.attempts, lease_until=view.lease_until)
        if same.update(**change, claim="", lease_until=None, updated_at=timezone.now()):
            log.warning("model view %s: its worker vanished; %s", view.id, change["state"])
            back += change["state"] == S.PENDING
    return back


# ---- one message waiting at most ---------------------------------------------------------------


def views_signal_raise() -> bool:
    """Whether to send a message now: True (and recorded) unless one is already waiting in the
    broker, untaken. The database decides between senders (the conditional UPDATE).

    Read first: while a message waits (all the time under a compile load), that read is the whole
    answer. Every compile sends after its commit, outside any transaction, and an UPDATE there,
    even one that matches no row, takes SQLite's write lock without queueing for it
    (config/sqlite), then a second query found the row. A worker that takes the message after this
    read looks for pending views after taking it (views_signal_taken), so it finds this one's."""
    row = ViewsSignal.objects.filter(pk=1).values_list("sent", "taken").first()
    if row is None:
        _, created = ViewsSignal.objects.get_or_create(pk=1, defaults={"sent": 1, "taken": 0})
        if created:
            return True
    elif row[0] != row[1]:
        return False
    return bool(ViewsSignal.objects.filter(pk=1, sent=F("taken")).update(sent=F("sent") + 1))


def views_signal_taken() -> None:
    """A worker took a message (before it looks for pending views): views queued from now on send
    another."""
    ViewsSignal.objects.filter(pk=1).update(taken=F("sent"))
