"""What review does when the item lifecycle moves an item (connected in ReviewConfig.ready, run
inside the transition's transaction): a submitted revision is snapshot as its reviewers will see
it and goes into reviewers' queues."""

from __future__ import annotations

from typing import Any

from annotator.models import Item
from review.models import ItemRevision
from review.reviewing.assignment import assignments_fill


def on_item_transition(sender: Any, *, item: Item, action: str, actor: Any, **kwargs: Any) -> None:
    if action != "submit":
        return
    ItemRevision.objects.update_or_create(
        item=item,
        number=item.revision,
        defaults={
            "question": item.question,
            "options": item.options,
            "answer": item.answer,
            "answer_format": item.answer_format,
            "provenance": item.provenance,
            "submitted_by": actor if getattr(actor, "pk", None) else None,
        },
    )
    assignments_fill(item=item)
