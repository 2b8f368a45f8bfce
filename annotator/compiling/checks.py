"""What the Items panel asks before anything is saved: which of the 12 tasks the selected marks can
make (and what is missing for the others, with the facts each task reads on them as typed fields),
and a preview of an item with its model view. The
templates answer both (Template.check, the compile service, the model view's plan): the page works
nothing out for itself. Nothing here writes."""

from __future__ import annotations

import base64
import tempfile
from pathlib import Path
from typing import Any

from annotator.compiling.catalog import TASK_DIMENSION
from annotator.compiling.modelview import PREVIEW_OPTION_SIDE, PREVIEW_SIDE, model_view_draw, view_plan
from annotator.compiling.qa import get_template
from annotator.compiling.services import compile_marks, marks_for_item
from annotator.models import Item, SatelliteImage


def _need_text(template: Any) -> list[str]:
    return [need.what for need in template.needs]


def tasks_check(*, user: Any, mark_ids: list[int]) -> list[dict[str, Any]]:
    """Per task, in the catalog's order: whether these marks (in this order) make an item, and if
    not, each thing to add or fix, as the template words it."""
    marks = marks_for_item(user=user, mark_ids=mark_ids) if mark_ids else []
    out = []
    for task, label in Item.Task.choices:
        template = get_template(task)
        problems = template.check(marks)
        fields = template.fact_fields(marks)
        for field in fields:
            # What the template says about this fact (missing, or disagreeing with the geometry),
            # shown under its field; a fact two marks could carry is flagged on both.
            field["problem"] = next((str(p) for p in problems if p.field == f"facts.{field['key']}"), "")
        out.append(
            {
                "task": task,
                "label": str(label),
                "dimension": TASK_DIMENSION[task],
                "answer_format": str(template.answer_format),
                "ok": not problems,
                "missing": [{"field": p.field, "message": str(p)} for p in problems],
                "needs": _need_text(template),
                "derives": template.derives,
                "fields": fields,
            }
        )
    return out


def _data_url(path: Path) -> str:
    return "data:image/jpeg;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def item_preview(*, user: Any, task: str, mark_ids: list[int], seed: int | None = None) -> dict[str, Any]:
    """The item these marks would make, with its model view drawn smaller (images as data URLs):
    the same template, phrasings, seed and plan as compiling, but nothing is stored."""
    marks = marks_for_item(user=user, mark_ids=mark_ids)
    compiled = compile_marks(task=task, marks=marks, seed=seed)
    item = compiled.item
    provenance = {"marks": [{"id": m.id, "label": m.label, "geometry": m.geometry,
                             "satellite_image": m.satellite_image_id} for m in marks], **item.provenance}  # fmt: skip
    plan = view_plan(provenance)
    image = SatelliteImage.objects.get(id=marks[0].satellite_image_id)
    with tempfile.TemporaryDirectory(prefix="skymark-preview-") as tmp:
        view, options = model_view_draw(
            provenance=provenance, image=image, out=Path(tmp), side=PREVIEW_SIDE, option_side=PREVIEW_OPTION_SIDE
        )
        drawn = {"image": _data_url(view), "options": [{"option": o, "image": _data_url(p)} for o, p in options]}
    return {
        "task": task,
        "question": item.question,
        "options": item.options,
        "answer": item.answer,
        "answer_format": item.answer_format,
        "seed": compiled.seed,
        "template": compiled.template.name,
        "phrasing": {k: item.provenance.get(k) for k in ("phrasing", "phrasing_id", "phrasing_text")},
        "model_view": {**drawn, "segment_s": list(plan.segment) if plan.segment else None},
    }
