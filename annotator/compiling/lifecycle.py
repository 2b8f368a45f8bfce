"""The item lifecycle: every change of an item's state, of a mark's lock and of an item's
staleness goes through this module, whichever app asks (compiling, marking, review).

    draft --submit--> in_review --approve--> approved
      ^                  |  \\------reject---> rejected --revise--> draft (revision + 1)
      |                  escalate                ^
      |                  v                       |
      |            in_adjudication --adjudicate_reject
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
- An item is *stale* when a mark it was compiled from has changed or gone since: the provenance
  keeps each mark's version, and a stale item can be neither submitted nor approved.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.dispatch import Signal

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
    """True when every mark the item was compiled from exists at the version it recorded."""
    recorded = {m["id"]: m["version"] for m in item.provenance.get("marks", [])}
    current = {m.id: m.version for m in marks}
    return recorded == current


def _transition(*, item: Item, action: str, actor: Any, reason: str, fields: dict[str, Any] | None = None) -> Item:
    """Move a locked item row along one edge of the graph; refuses illegal and stale moves."""
    source, target, rule = TRANSITIONS[action]
    if item.state != source:
        raise Conflict(f"the item is {_state_name(item.state)}; {rule}")
    # Lock the marks too: a concurrent autosave's conditional UPDATE then waits for this
    # transaction and sees the new lock, and no save slips in between the check and the write.
    marks = list(Mark.objects.select_for_update().filter(items=item).order_by("id"))
    if action in _NEEDS_CURRENT_MARKS and (item.stale or not item_provenance_current(item=item, marks=marks)):
        raise Conflict("a mark of this item changed after it was compiled; compile it again before it goes on")
    changed = ["state", "updated_at"]
    for name, value in (fields or {}).items():
        setattr(item, name, value)
        changed.append(name)
    item.state = target
    item.save(update_fields=changed)
    marks_relock(mark_ids=[m.id for m in marks])
    _announce(item=item, action=action, source=source, target=target, actor=actor, reason=reason.strip())
    return item


def _locked_item(item_id: int) -> Item:
    return Item.objects.select_for_update().get(id=item_id)


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
    their revision number."""
    locked = _locked_item(item.id)
    return _transition(
        item=locked,
        action="revise",
        actor=actor,
        reason=reason,
        fields={**fields, "revision": locked.revision + 1, "stale": False},
    )


def items_invalidate_for_mark(*, mark_id: int) -> int:
    """A mark changed: the author's open items built from it become stale. Returns how many."""
    return Item.objects.filter(marks=mark_id, state__in=OPEN_STATES, stale=False).update(stale=True)


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


def item_create_draft(*, marks: list[Mark], **fields: Any) -> Item:
    """A new draft compiled from `marks` (fields: scene, author, task, question, ...)."""
    item = Item.objects.create(state=S.DRAFT, stale=False, **fields)
    item.marks.set(marks)
    _announce(item=item, action="create", source="", target=S.DRAFT, actor=item.author, reason="compiled from marks")
    return item
