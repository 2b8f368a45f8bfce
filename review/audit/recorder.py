"""Records each item transition the lifecycle announces. Connected in ReviewConfig.ready; it runs
inside the transition's transaction, so a transition and its event commit together or not at all."""

from __future__ import annotations

from typing import Any

from annotator.models import Item
from review.models import ItemEvent


def record_transition(
    sender: Any, *, item: Item, action: str, source: str, target: str, actor: Any, reason: str, **kwargs: Any
) -> None:
    ItemEvent.objects.create(
        item_id=item.id,
        revision=item.revision,
        action=action,
        from_state=source,
        to_state=target,
        actor=actor if getattr(actor, "pk", None) else None,
        reason=reason,
    )
