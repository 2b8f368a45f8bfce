"""QA items: compile from marks through a template, submit for review."""

from __future__ import annotations

import random
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from annotator.exceptions import Conflict
from annotator.models import Item, Mark
from annotator.qa import TemplateError, get_template
from annotator.qa.base import default_seed, mark_snapshot


@transaction.atomic
def item_compile(*, user: Any, task: str, mark_ids: list[int], seed: int | None = None) -> Item:
    """Build a draft item from the user's own marks of one scene. Raises ValidationError with the
    field the annotator must fix."""
    marks = list(Mark.objects.select_related("scene", "satellite_image").filter(id__in=mark_ids))
    if len(marks) != len(set(mark_ids)) or not marks:
        raise ValidationError({"mark_ids": "unknown mark id(s)"})
    if any(m.author_id != user.id for m in marks):
        raise PermissionDenied("items are compiled from your own marks")
    if len({m.scene_id for m in marks}) != 1:
        raise ValidationError({"mark_ids": "all marks of an item come from one scene"})
    try:
        template = get_template(task)
        seed = default_seed(marks, task) if seed is None else seed
        compiled = template.compile(marks, random.Random(seed))
    except TemplateError as exc:
        raise ValidationError({exc.field: str(exc)}) from exc
    provenance = {
        "template": template.name,
        "seed": seed,
        "marks": [mark_snapshot(m) for m in marks],
        **compiled.provenance,
    }
    item = Item.objects.create(
        scene=marks[0].scene,
        author=user,
        task=task,
        question=compiled.question,
        options=compiled.options,
        answer=compiled.answer,
        answer_format=compiled.answer_format,
        template=template.name,
        seed=seed,
        provenance=provenance,
    )
    item.marks.set(marks)
    return item


@transaction.atomic
def item_submit(*, item: Item, user: Any) -> Item:
    """Send a draft to review. A rejected item stays rejected; its author fixes the marks and
    compiles a new draft, so the reviews of the old wording remain attached to it."""
    if item.author_id != user.id:
        raise PermissionDenied("only the author can submit an item")
    if item.state != Item.State.DRAFT:
        raise Conflict(f"the item is {item.state.replace('_', ' ')}; only drafts can be submitted")
    item.state = Item.State.IN_REVIEW
    item.save(update_fields=["state", "updated_at"])
    return item
