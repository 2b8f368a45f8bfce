"""QA items: compile a draft from marks through a task's template. State changes after that
(submit, approve, reject, staleness) belong to annotator.compiling.lifecycle."""

from __future__ import annotations

import random
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from annotator.compiling import lifecycle
from annotator.compiling.modelview import model_view_create
from annotator.compiling.qa import TemplateError, get_template
from annotator.compiling.qa.base import default_seed, mark_snapshot
from annotator.models import Item, Mark


@transaction.atomic
def item_compile(*, user: Any, task: str, mark_ids: list[int], seed: int | None = None) -> Item:
    """Build a draft item from the user's own marks of one scene. Raises ValidationError with the
    field the annotator must fix."""
    marks = list(Mark.objects.select_related("scene", "satellite_image").filter(id__in=mark_ids))
    if len(marks) != len(set(mark_ids)) or not marks:
        raise ValidationError({"mark_ids": "unknown mark id(s)"})
    # Templates match marks to their parts (target, region, ...) in the order the annotator gave.
    marks.sort(key=lambda m: mark_ids.index(m.id))
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
    item = lifecycle.item_create_draft(
        marks=marks,
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
    model_view_create(item=item)
    return item
