"""Writes to the review policy and the rejection taxonomy (admins, from the settings page or the
Django admin). Reasons are never deleted: reviews keep their codes; a retired reason is inactive."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from review.models import RejectionReason, ReviewPolicy
from review.reviewing.policy import policy_get

POLICY_FIELDS = ("reviewers_per_item", "admins_adjudicate", "gold_rate", "gold_min_accuracy", "gold_min_answers")
REASON_FIELDS = ("label", "description", "group", "active", "position")


@transaction.atomic
def policy_update(*, admin: Any, project_id: Any = None, **fields: Any) -> ReviewPolicy:
    """Change the policy; raises ValidationError naming the field out of range (the table's own
    constraints). Items already assigned keep their reviewers (assign_reviews tops them up)."""
    unknown = set(fields) - set(POLICY_FIELDS)
    if unknown:
        raise ValidationError(dict.fromkeys(unknown, "not a policy setting"))
    policy = policy_get(project_id=project_id)
    for name, value in fields.items():
        setattr(policy, name, value)
    policy.updated_by = admin
    policy.full_clean()
    policy.save()
    return policy


@transaction.atomic
def reason_create(
    *, code: str, label: str, description: str = "", group: str = RejectionReason.Group.ITEM
) -> RejectionReason:
    """A new reason at the end of the list."""
    last = RejectionReason.objects.order_by("-position").values_list("position", flat=True).first()
    reason = RejectionReason(code=code, label=label, description=description, group=group, position=(last or 0) + 1)
    reason.full_clean()
    reason.save()
    return reason


@transaction.atomic
def reason_update(*, code: str, **fields: Any) -> RejectionReason:
    """Rename, describe, regroup, reorder, retire or bring back a reason (its code stays)."""
    reason = RejectionReason.objects.select_for_update().get(code=code)
    for name, value in fields.items():
        if name not in REASON_FIELDS:
            raise ValidationError({name: "cannot be changed"})
        setattr(reason, name, value)
    reason.full_clean()
    reason.save()
    return reason
