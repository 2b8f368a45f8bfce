"""The item lifecycle: every change of an item's state, of a mark's lock and of an item's
staleness goes through this module, whichever app asks (compiling, marking, review).

    draft --submit--> in_review --approve--> approved
      ^                  |  \\------reject---> rejected --revise--> draft (revision + 1)
      |                  escalate                ^
      |                  v                       |
      |            in_adjudication --adjudicate_reject      rejected --withdraw--> withdrawn
      |                                                         draft (revision > 1) --withdraw_revision--^
      |                  \\--adjudicate_approve--> approved

- An open item (a draft, or a rejected item) is *replaced* when it is compiled again: a draft goes
  (it could never be submitted now), a rejected item stays as history with `replaced_by` set.

- Every move names its `actor` (a user, or None for the system) and a `reason`, and sends
  `item_transitioned` inside the same transaction: the review app records it in its audit log and
  assigns reviewers on submit, without this app importing review. A receiver that fails rolls the
  move back, so no transition goes unrecorded.
- The database refuses what is not an edge of this graph (annotator migration 0009's trigger).
- A mark is *locked* while an item in review, in adjudication or approved uses it (`Mark.locked`,
  recomputed here at every transition); the autosave UPDATE, deletion, the API and the page read it.
  Its author's drafts and rejected items built on it are not stuck with it: an edit is written to a
  copy they move to (`marks_copy_on_write`), and the locking items keep the original.
- An item is *stale* when what it read of its marks (annotator.compiling.reads: shapes, times,
  labels and the facts its template read) changed or a mark went; a stale item can be neither
  submitted nor approved.
- A revision must differ from the one reviewers rejected (its question, options, key or what it
  read of its marks): submitting it unchanged is refused with what to change. A rejected item its
  author gives up on (or its draft revision) is *withdrawn*: it leaves every queue, for good.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, F, OuterRef
from django.dispatch import Signal
from django.http import Http404

from annotator.compiling.reads import item_fingerprint, item_inputs_current, item_reads_changed
from annotator.exceptions import Conflict
from annotator.models import Item, Mark

S = Item.State
# Items in these states freeze their marks.
LOCKING_STATES = (S.IN_REVIEW, S.IN_ADJUDICATION, S.APPROVED)
# Items in these states are the author's to fix; a mark edit makes them stale.
OPEN_STATES = (S.DRAFT, S.REJECTED)
# action: (from, to, the rule a refusal states). Migration annotator.0009 keeps the same edges.
TRANSITIONS: dict[str, tuple[str, str, str]] = {
    "submit": (S.DRAFT, S.IN_REVIEW, "only drafts can be submitted"),
    "approve": (S.IN_REVIEW, S.APPROVED, "only items in review can be approved"),
    "reject": (S.IN_REVIEW, S.REJECTED, "only items in review can be rejected"),
    "escalate": (S.IN_REVIEW, S.IN_ADJUDICATION, "only items in review go to adjudication"),
    "adjudicate_approve": (S.IN_ADJUDICATION, S.APPROVED, "only items in adjudication are adjudicated"),
    "adjudicate_reject": (S.IN_ADJUDICATION, S.REJECTED, "only items in adjudication are adjudicated"),
    "revise": (S.REJECTED, S.DRAFT, "only rejected items can be revised"),
    "withdraw": (S.REJECTED, S.WITHDRAWN, "only rejected items and their draft revisions can be withdrawn"),
    # A revision drafted after a rejection can be given up too (never a first draft: it was never
    # reviewed; migration 0016's guard checks the revision as well).
    "withdraw_revision": (S.DRAFT, S.WITHDRAWN, "only rejected items and their draft revisions can be withdrawn"),
}
# Moves that let an item on (towards a release) need its marks as they were compiled.
_NEEDS_CURRENT_MARKS = {"submit", "approve", "adjudicate_approve"}

# Sent on every transition, inside its transaction, with keyword arguments: item (after the move),
# action, source, target (states; "" for "not there": before creation, after a draft is discarded),
# actor (a user or None) and reason (text).
item_transitioned = Signal()


def _state_name(state: str) -> str:
    return state.replace("_", " ")


def _announce(*, item: Item, action: str, source: str, target: str, actor: Any, reason: str) -> None:
    item_transitioned.send(
        sender=Item, item=item, action=action, source=source, target=target, actor=actor, reason=reason
    )


def marks_relock(*, mark_ids: Iterable[int]) -> None:
    """Set each mark's `locked` from the items that use it now (one UPDATE)."""
    frozen = Item.objects.filter(marks=OuterRef("pk"), state__in=LOCKING_STATES)
    Mark.objects.filter(id__in=list(mark_ids)).update(locked=Exists(frozen))


def item_provenance_current(*, item: Item, marks: list[Mark]) -> bool:
    """True when the item's marks are those it was compiled from and what it read of them is
    unchanged (annotator.compiling.reads)."""
    return item_inputs_current(item=item, marks=marks)


# Provenance key of a revision: the fingerprint of the revision its reviewers rejected.
REJECTED_FINGERPRINT = "rejected_fingerprint"
UNCHANGED_MESSAGE = (
    "This revision is the same as the one the reviewers rejected: same marks, facts, question and key. "
    "Change what their reasons point at (a mark's shape or time, a fact, or the question's phrasing), "
    "compile it again, then submit; or withdraw the item."
)


def _refuse_unchanged(item: Item) -> None:
    rejected = item.provenance.get(REJECTED_FINGERPRINT)
    if rejected and rejected == item_fingerprint(item):
        raise Conflict(UNCHANGED_MESSAGE)


def _transition(*, item: Item, action: str, actor: Any, reason: str, fields: dict[str, Any] | None = None) -> Item:
    """Move a locked item row along one edge of the graph; refuses illegal and stale moves."""
    source, target, rule = TRANSITIONS[action]
    if item.state != source:
        raise Conflict(f"the item is {_state_name(item.state)}; {rule}")
    # Whether the item holds its marks' lock changes only between a locking and an open state; a move
    # that keeps it (escalate, approve, ...) leaves every mark's `locked` as it is.
    relock = (source in LOCKING_STATES) != (target in LOCKING_STATES)
    needs_marks = action in _NEEDS_CURRENT_MARKS
    # Lock the marks too: a concurrent autosave's conditional UPDATE then waits for this
    # transaction and sees the new lock, and no save slips in between the check and the write.
    marks = list(Mark.objects.select_for_update().filter(items=item).order_by("id")) if relock or needs_marks else []
    if needs_marks and (item.stale or not item_provenance_current(item=item, marks=marks)):
        raise Conflict("a mark of this item changed after it was compiled; compile it again before it goes on")
    if action == "submit":
        _refuse_unchanged(item)
    changed = ["state", "updated_at"]
    for name, value in (fields or {}).items():
        setattr(item, name, value)
        changed.append(name)
    item.state = target
    item.save(update_fields=changed)
    if relock:
        marks_relock(mark_ids=[m.id for m in marks])
    _announce(item=item, action=action, source=source, target=target, actor=actor, reason=reason.strip())
    return item


def _locked_item(item_id: int) -> Item:
    item = Item.objects.select_for_update().filter(id=item_id).first()
    if item is None:  # e.g. a draft that went with its mark, deleted by a request that won the race
        raise Http404("this item no longer exists")
    return item


@transaction.atomic
def item_submit(*, item: Item, actor: Any, reason: str = "submitted for review") -> Item:
    """Draft -> in review: the item's marks lock. Refused for a stale draft."""
    return _transition(item=_locked_item(item.id), action="submit", actor=actor, reason=reason)


@transaction.atomic
def item_approve(*, item: Item, actor: Any, reason: str) -> Item:
    """In review -> approved (the review app decides when). Refused for a stale item."""
    return _transition(item=_locked_item(item.id), action="approve", actor=actor, reason=reason)


@transaction.atomic
def item_reject(*, item: Item, actor: Any, reason: str) -> Item:
    """In review -> rejected: back to the author, whose marks unlock (unless another item holds them)."""
    return _transition(item=_locked_item(item.id), action="reject", actor=actor, reason=reason)


@transaction.atomic
def item_escalate(*, item: Item, actor: Any, reason: str) -> Item:
    """In review -> in adjudication: the reviews did not settle it; the marks stay locked."""
    return _transition(item=_locked_item(item.id), action="escalate", actor=actor, reason=reason)


@transaction.atomic
def item_adjudicate(*, item: Item, approve: bool, actor: Any, reason: str) -> Item:
    """In adjudication -> approved or rejected: the adjudicator's final word (a reason is required)."""
    if not reason.strip():
        raise ValidationError({"reason": "an adjudication states why it decides so"})
    action = "adjudicate_approve" if approve else "adjudicate_reject"
    return _transition(item=_locked_item(item.id), action=action, actor=actor, reason=reason)


@transaction.atomic
def item_revise(*, item: Item, actor: Any, reason: str, fields: dict[str, Any]) -> Item:
    """Rejected -> draft as the next revision of the same item, with `fields` (question, options,
    answer, provenance, ...) compiled again from the current marks. Earlier revisions' reviews keep
    their revision number. The new provenance keeps the rejected revision's fingerprint: submitting
    the revision unchanged is refused."""
    locked = _locked_item(item.id)
    provenance = {**fields.get("provenance", {}), REJECTED_FINGERPRINT: item_fingerprint(locked)}
    return _transition(
        item=locked,
        action="revise",
        actor=actor,
        reason=reason,
        fields={**fields, "provenance": provenance, "revision": locked.revision + 1, "stale": False},
    )


@transaction.atomic
def item_refresh_revision(*, item: Item, fields: dict[str, Any]) -> Item:
    """A draft revision (revised after a rejection) compiled again in place from its marks as they
    are now: same item, same revision, no change of state. (A first draft is replaced by a new item
    instead; a revision keeps its id, its earlier rounds and the rejected fingerprint.)"""
    locked = _locked_item(item.id)
    if locked.state != S.DRAFT or locked.revision < 2:
        raise Conflict("only a draft revision of a rejected item is compiled again in place")
    provenance = {**fields.get("provenance", {})}
    if REJECTED_FINGERPRINT in locked.provenance:
        provenance[REJECTED_FINGERPRINT] = locked.provenance[REJECTED_FINGERPRINT]
    for name, value in {**fields, "provenance": provenance, "stale": False}.items():
        setattr(locked, name, value)
    locked.save()
    return locked


@transaction.atomic
def item_withdraw(*, item: Item, actor: Any, reason: str) -> Item:
    """Rejected (or a draft revision of a rejected item) -> withdrawn: the author gives the item up.
    It holds no mark, enters no queue and is never released; its reviews and audit trail stay."""
    locked = _locked_item(item.id)
    action = "withdraw_revision" if locked.state == S.DRAFT and locked.revision > 1 else "withdraw"
    return _transition(item=locked, action=action, actor=actor, reason=reason)


def items_invalidate_for_mark(*, mark_id: int, changes: set[str] | None = None) -> int:
    """A mark changed: the author's open items built from it become stale, those that read what
    changed (`changes` from annotator.compiling.reads.mark_changes; None: any item). Returns how many."""
    open_items = Item.objects.filter(marks=mark_id, state__in=OPEN_STATES, stale=False)
    if changes is None:
        return open_items.update(stale=True)
    rows = open_items.only("id", "provenance")
    hit = [i.id for i in rows if item_reads_changed(item=i, mark_id=mark_id, changes=changes)]
    return Item.objects.filter(id__in=hit).update(stale=True) if hit else 0


def _movable(mark_id: int, author_id: int) -> Any:
    """The author's items that follow an edit of the mark: drafts and rejected items not replaced."""
    return Item.objects.filter(marks=mark_id, author_id=author_id, state__in=OPEN_STATES, replaced_by__isnull=True)


def marks_copy_on_write_possible(*, mark_id: int, author_id: int) -> bool:
    """Whether editing this locked mark would copy it: the author has drafts or rejected items on it."""
    return _movable(mark_id, author_id).exists()


def movable_items_exist(*, author_id: int) -> Any:
    """An Exists() over Mark rows (OuterRef "pk"): the author has open items on the mark, for
    annotating lists of marks with whether an edit copies them (see marks_copy_on_write_possible).

    It starts from the mark's own links to items (the mark index), then each linked item by its key.
    SQLite's planner, left to choose, walked all the author's items for every mark through the
    author index instead: at the benchmark's size ~900 items x 50 marks per scene read, so the read
    grew with the annotator's work (bench/README.md). Comparing `author_id + 0` keeps the author
    index out of its choice (SQLite's documented way of excluding an index); PostgreSQL's planner
    chooses by its statistics."""
    links = (
        Item.marks.through.objects.alias(item_author=F("item__author_id") + 0)
        .filter(mark_id=OuterRef("pk"), item_author=author_id)  # type: ignore[misc]  # an alias the stubs do not see
        .filter(item__state__in=OPEN_STATES, item__replaced_by__isnull=True)
    )
    return Exists(links)


def items_move_to_copy(*, original: Mark, copy: Mark) -> list[int]:
    """Copy on write: the author edited `original`, which an item in review, in adjudication or
    approved locks, so the edit went to `copy` (annotator.marking.services.mark_update). The
    author's drafts and rejected items built on the original move to the copy and become stale
    (compiled again, or revised, they read the copy); the locking items keep the original, which
    does not change. Call inside the editing transaction. Returns the ids of the items moved."""
    moving = list(_movable(original.id, original.author_id).select_for_update().values_list("id", flat=True))
    Item.marks.through.objects.filter(item_id__in=moving, mark_id=original.id).update(mark_id=copy.id)
    Item.objects.filter(id__in=moving).update(stale=True)
    marks_relock(mark_ids=[original.id, copy.id])
    return moving


def items_release_mark(*, mark_id: int) -> None:
    """A mark is about to be deleted: first drafts built from it go with it (each discard announced,
    by its author, who deletes the mark); rejected items and later revisions built from it stay
    (their reviews are history) but become stale. Call inside the deleting transaction."""
    drafts = Item.objects.select_for_update().filter(marks=mark_id, state=S.DRAFT, revision=1)
    for draft in drafts.select_related("author"):
        _announce(
            item=draft,
            action="discard",
            source=S.DRAFT,
            target="",
            actor=draft.author,
            reason="a mark it used was deleted",
        )
        draft.delete()
    items_invalidate_for_mark(mark_id=mark_id)


def item_check_replaceable(*, item: Item) -> None:
    """Only the author's open items, not yet replaced, are compiled again; in review and approved
    ones hold their marks as they are."""
    if item.state not in OPEN_STATES:
        raise Conflict(f"the item is {_state_name(item.state)}; only drafts and rejected items are compiled again")
    if item.replaced_by_id is not None:
        raise Conflict(f"this item was compiled again already, as {Item.uid_for(item.replaced_by_id)}")


def item_replace(*, old: Item, new: Item) -> None:
    """`new` was compiled from `old`'s marks to replace it. Call inside the compiling transaction."""
    item_check_replaceable(item=old)
    if old.state == S.DRAFT:
        reason = f"compiled again as {new.uid}"
        _announce(item=old, action="discard", source=S.DRAFT, target="", actor=new.author, reason=reason)
        old.delete()
    else:
        Item.objects.filter(id=old.id).update(replaced_by=new)


def _marks_known(item: Item, marks: list[Mark]) -> None:
    """Record `marks` as the item's prefetched marks, as prefetch_related would: they are exactly
    the ones just linked, so whoever answers with the new item (its mark ids, its image) reads no
    query for them; reading them again was one of a compile's 13 queries."""
    linked = item.marks.all()
    linked._result_cache = list(marks)
    linked._prefetch_done = True  # type: ignore[attr-defined]
    item._prefetched_objects_cache = {"marks": linked}  # type: ignore[attr-defined]


def item_create_draft(*, marks: list[Mark], **fields: Any) -> Item:
    """A new draft compiled from `marks` (fields: scene, author, task, question, ...)."""
    item = Item.objects.create(state=S.DRAFT, stale=False, **fields)
    item.marks.add(*marks)  # a new item has no marks yet: set() would read them first to compare
    _marks_known(item, marks)
    _announce(item=item, action="create", source="", target=S.DRAFT, actor=item.author, reason="compiled from marks")
    return item
