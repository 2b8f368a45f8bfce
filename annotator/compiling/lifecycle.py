"""The item lifecycle: every change of an item's state, of a mark's lock and of an item's
staleness goes through this module, whichever app asks (compiling, marking, review).

    draft --submit--> in_review --approve--> approved
                          \\------reject---> rejected

- An open item (a draft, or a rejected item) is *replaced* when it is compiled again: a draft goes
  (it could never be submitted now), a rejected item stays as history with `replaced_by` set.

- A mark is *locked* while an item in review or approved uses it (`Mark.locked`, recomputed
  here at every transition); the autosave UPDATE, deletion, the API and the page read that flag.
- An item is *stale* when a mark it was compiled from has changed or gone since: the provenance
  keeps each mark's version, and a stale item can be neither submitted nor approved.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef

from annotator.exceptions import Conflict
from annotator.models import Item, Mark

S = Item.State
# Items in these states freeze their marks.
LOCKING_STATES = (S.IN_REVIEW, S.APPROVED)
# Items in these states are the author's to fix; a mark edit makes them stale.
OPEN_STATES = (S.DRAFT, S.REJECTED)
# action: (from, to, the rule a refusal states)
TRANSITIONS: dict[str, tuple[str, str, str]] = {
    "submit": (S.DRAFT, S.IN_REVIEW, "only drafts can be submitted"),
    "approve": (S.IN_REVIEW, S.APPROVED, "only items in review can be approved"),
    "reject": (S.IN_REVIEW, S.REJECTED, "only items in review can be rejected"),
}


def _state_name(state: str) -> str:
    return state.replace("_", " ")


def marks_relock(*, mark_ids: Iterable[int]) -> None:
    """Set each mark's `locked` from the items that use it now (one UPDATE)."""
    frozen = Item.objects.filter(marks=OuterRef("pk"), state__in=LOCKING_STATES)
    Mark.objects.filter(id__in=list(mark_ids)).update(locked=Exists(frozen))


def item_provenance_current(*, item: Item, marks: list[Mark]) -> bool:
    """True when every mark the item was compiled from exists at the version it recorded."""
    recorded = {m["id"]: m["version"] for m in item.provenance.get("marks", [])}
    current = {m.id: m.version for m in marks}
    return recorded == current


def _transition(*, item: Item, action: str) -> Item:
    """Move a locked item row along one edge of the graph; refuses illegal and stale moves."""
    source, target, rule = TRANSITIONS[action]
    if item.state != source:
        raise Conflict(f"the item is {_state_name(item.state)}; {rule}")
    # Lock the marks too: a concurrent autosave's conditional UPDATE then waits for this
    # transaction and sees the new lock, and no save slips in between the check and the write.
    marks = list(Mark.objects.select_for_update().filter(items=item).order_by("id"))
    if action != "reject" and (item.stale or not item_provenance_current(item=item, marks=marks)):
        raise Conflict("a mark of this item changed after it was compiled; compile it again before it goes on")
    item.state = target
    item.save(update_fields=["state", "updated_at"])
    marks_relock(mark_ids=[m.id for m in marks])
    return item


def _locked_item(item_id: int) -> Item:
    return Item.objects.select_for_update().get(id=item_id)


@transaction.atomic
def item_submit(*, item: Item) -> Item:
    """Draft -> in review: the item's marks lock. Refused for a stale draft."""
    return _transition(item=_locked_item(item.id), action="submit")


@transaction.atomic
def item_approve(*, item: Item) -> Item:
    """In review -> approved (the review app decides when). Refused for a stale item."""
    return _transition(item=_locked_item(item.id), action="approve")


@transaction.atomic
def item_reject(*, item: Item) -> Item:
    """In review -> rejected: back to the author, whose marks unlock (unless another item holds them)."""
    return _transition(item=_locked_item(item.id), action="reject")


def items_invalidate_for_mark(*, mark_id: int) -> int:
    """A mark changed: the author's open items built from it become stale. Returns how many."""
    return Item.objects.filter(marks=mark_id, state__in=OPEN_STATES, stale=False).update(stale=True)


def items_release_mark(*, mark_id: int) -> None:
    """A mark is about to be deleted: drafts built from it go with it; rejected items built from
    it stay (their reviews are history) but become stale. Call inside the deleting transaction."""
    Item.objects.filter(marks=mark_id, state=S.DRAFT).delete()
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
        old.delete()
    else:
        Item.objects.filter(id=old.id).update(replaced_by=new)


def item_create_draft(*, marks: list[Mark], **fields: Any) -> Item:
    """A new draft compiled from `marks` (fields: scene, author, task, question, ...)."""
    item = Item.objects.create(state=S.DRAFT, stale=False, **fields)
    item.marks.set(marks)
    return item
