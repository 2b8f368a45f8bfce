"""Each project's review policy row and the rules read from it."""

from __future__ import annotations

from typing import Any

from annotator.access.roles import ADJUDICATOR, ADMIN, user_roles
from annotator.models import Item, project_default_id
from review.models import ReviewPolicy


def policy_get(*, project_id: Any = None) -> ReviewPolicy:
    """The policy of a project (the default project's when none is named), made with the defaults
    the first time it is asked for (a new project, or a test that emptied the table)."""
    return ReviewPolicy.objects.get_or_create(project_id=project_id or project_default_id())[0]


def policy_for_item(item: Item) -> ReviewPolicy:
    """The policy of the item's project (items reach their project through their scene)."""
    if Item._meta.get_field("scene").is_cached(item):  # read with the item (a decision locks both)
        project_id = item.scene.project_id
    else:
        project_id = Item.objects.filter(id=item.pk).values_list("scene__project_id", flat=True).first()
    return policy_get(project_id=project_id)


def may_adjudicate(*, user: Any, policy: ReviewPolicy | None = None) -> bool:
    """Adjudicators may; admins too while the policy (the default project's unless given) lets them."""
    roles = user_roles(user)
    if ADJUDICATOR in roles:
        return True
    return ADMIN in roles and (policy or policy_get()).admins_adjudicate
