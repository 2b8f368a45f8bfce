"""The review policy row and the rules read from it."""

from __future__ import annotations

from typing import Any

from annotator.access.roles import ADJUDICATOR, ADMIN, user_roles
from review.models import ReviewPolicy


def policy_get() -> ReviewPolicy:
    """The one policy row (made by migration 0004; made again with defaults if a test emptied it)."""
    return ReviewPolicy.objects.get_or_create(id=1)[0]


def may_adjudicate(*, user: Any, policy: ReviewPolicy | None = None) -> bool:
    """Adjudicators may; admins too while the policy lets them."""
    roles = user_roles(user)
    if ADJUDICATOR in roles:
        return True
    return ADMIN in roles and (policy or policy_get()).admins_adjudicate
