"""Adjudication: an item its reviewers did not settle gets one final decision, with a reason, from
someone the policy lets adjudicate who neither wrote nor reviewed it."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction

from annotator.compiling import lifecycle
from annotator.exceptions import Conflict
from annotator.models import Item
from review.models import Adjudication, Review
from review.reviewing.anchors import anchors_clean
from review.reviewing.policy import may_adjudicate, policy_for_item
from review.reviewing.reasons import reasons_clean

D = Adjudication.Decision


@transaction.atomic
def item_adjudicate(
    *,
    item: Item,
    adjudicator: Any,
    decision: str,
    reason: str,
    reasons: list[str] | None = None,
    anchor_mark_id: int | None = None,
    anchor_time_s: float | None = None,
) -> Adjudication:
    """Approve or reject an item in adjudication, finally. `reason` (words) is required; a
    rejection also names taxonomy reasons, shown to the author on the marks like a reviewer's."""
    if not may_adjudicate(user=adjudicator, policy=policy_for_item(item)):
        raise PermissionDenied("only adjudicators can decide items in adjudication")
    item = Item.objects.select_for_update().select_related("scene__video").get(id=item.id)
    if item.state != Item.State.IN_ADJUDICATION:
        raise Conflict(f"the item is {item.state.replace('_', ' ')}, not in adjudication")
    if item.author_id == adjudicator.pk:
        raise PermissionDenied("you cannot adjudicate an item you wrote")
    if Review.objects.filter(item=item, revision=item.revision, reviewer=adjudicator).exists():
        raise PermissionDenied("you reviewed this item; another adjudicator decides it")
    if decision not in (D.APPROVE, D.REJECT):
        raise ValidationError({"decision": "approve or reject"})
    if not reason.strip():
        raise ValidationError({"reason": "say why: the adjudicator's decision is final"})
    codes = reasons_clean(reasons or [])
    if decision == D.REJECT and not codes:
        raise ValidationError({"reasons": "a rejection needs at least one reason"})
    if decision == D.APPROVE and codes:
        raise ValidationError({"reasons": "an approval carries no rejection reasons"})
    anchor_mark_id, anchor_time_s = anchors_clean(item=item, mark_id=anchor_mark_id, time_s=anchor_time_s)
    try:
        with transaction.atomic():
            row = Adjudication.objects.create(
                item=item,
                revision=item.revision,
                adjudicator=adjudicator,
                decision=decision,
                reason=reason.strip(),
                reasons=codes,
                anchor_mark_id=anchor_mark_id,
                anchor_time_s=anchor_time_s,
            )
    except IntegrityError:
        raise Conflict("this revision has been adjudicated already") from None
    lifecycle.item_adjudicate(item=item, approve=decision == D.APPROVE, actor=adjudicator, reason=reason)
    return row
