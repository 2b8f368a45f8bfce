"""The roles, as Django groups: annotator, reviewer and admin (created by migration annotator.0002)
and adjudicator (review.0004), who settles items the reviewers did not agree on."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

ANNOTATOR = "annotator"
REVIEWER = "reviewer"
ADMIN = "admin"
ADJUDICATOR = "adjudicator"
ALL_ROLES = (ANNOTATOR, REVIEWER, ADMIN, ADJUDICATOR)


def user_roles(user: Any) -> set[str]:
    """Role names of a user; cached on the instance so a request asks the database once."""
    if not getattr(user, "is_authenticated", False):
        return set()
    cached = getattr(user, "_skymark_roles", None)
    if cached is None:
        cached = roles_remember(user, user.groups.values_list("name", flat=True))
    return cached


def roles_remember(user: Any, group_names: Iterable[str]) -> set[str]:
    """Keep on the user the roles their group names give (a superuser is also an admin), read in
    the same query as the user itself when a request signs in (annotator.hotpath)."""
    roles = set(group_names)
    if user.is_superuser:
        roles.add(ADMIN)
    user._skymark_roles = roles
    return roles


def has_role(user: Any, role: str) -> bool:
    return role in user_roles(user)
