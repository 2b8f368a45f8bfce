"""Bulk actions on an annotator's items: submit, compile again, revise or withdraw many in one request.

Each item goes through the same services and lifecycle moves as the one-item APIs
(annotator.compiling.lifecycle owns every state change), in its own savepoint: an item either
moves completely or not at all, and a refusal (stale, in the wrong state, not yours) leaves the
others alone. The answer says, per item, what became of it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404

from annotator.access.scopes import scene_is_assigned
from annotator.compiling import lifecycle
from annotator.compiling.services import item_recompile, item_revise, item_withdraw
from annotator.exceptions import Conflict
from annotator.models import Item

# A request acts on at most this many items: a workspace's selection, not a whole project
# (each item is a few queries and may compile again).
MAX_BULK_ITEMS = 200
ACTIONS = ("submit", "recompile", "revise", "withdraw")
UNKNOWN = "no such item among yours"


@dataclass(frozen=True)
class BulkResult:
    """What became of one requested item: `item_id` is the item that results (the new draft of a
    recompiled first draft; the same item otherwise), None when it was refused."""

    requested_id: int
    ok: bool
    item_id: int | None = None
    error: str = ""


def _sentence(exc: Exception) -> str:
    """The refusal's reason as one sentence, whichever exception the service raised."""
    if isinstance(exc, ValidationError):
        return "; ".join(exc.messages)
    return str(exc) or exc.__class__.__name__


def _act(*, user: Any, action: str, item: Item) -> Item:
    if action == "submit":
        return lifecycle.item_submit(item=item, actor=user)
    if action == "recompile":
        return item_recompile(user=user, item_id=item.id)
    if action == "revise":
        return item_revise(user=user, item_id=item.id)
    return item_withdraw(user=user, item_id=item.id)


def items_bulk_act(*, user: Any, action: str, item_ids: list[int]) -> list[BulkResult]:
    """Apply `action` ("submit", "recompile", "revise" or "withdraw") to each of the user's own items named,
    in the order given, each atomically on its own. Items that are not the user's (or do not exist)
    are refused as unknown, so ids do not leak; items of a scene no longer assigned to the user are
    refused with that reason. Side effects: those of the one-item services (audit events, reviewer
    assignments on submit, model views queued on recompile and revise)."""
    if action not in ACTIONS:
        raise ValidationError({"action": f"one of {', '.join(ACTIONS)}"})
    if len(item_ids) > MAX_BULK_ITEMS:
        raise ValidationError({"ids": f"at most {MAX_BULK_ITEMS} items per request"})
    own = {it.id: it for it in Item.objects.filter(id__in=item_ids, author_id=user.pk)}
    assigned: dict[int, bool] = {}
    results = []
    for item_id in item_ids:
        item = own.get(item_id)
        if item is None:
            results.append(BulkResult(item_id, ok=False, error=UNKNOWN))
            continue
        if item.scene_id not in assigned:  # one query per scene, not per item
            assigned[item.scene_id] = scene_is_assigned(user=user, scene_id=item.scene_id)
        if not assigned[item.scene_id]:
            results.append(BulkResult(item_id, ok=False, error="this scene is no longer assigned to you"))
            continue
        try:
            # Each service is atomic on its own (a savepoint inside a caller's transaction), so a
            # refusal leaves nothing of that item half-moved and does not undo the others.
            done = _act(user=user, action=action, item=item)
        except (Conflict, ValidationError, PermissionDenied, Http404) as exc:
            error = UNKNOWN if isinstance(exc, Http404) else _sentence(exc)
            results.append(BulkResult(item_id, ok=False, error=error))
            continue
        results.append(BulkResult(item_id, ok=True, item_id=done.id))
    return results
