"""QA items: compile a draft from marks through a task's template, compile one again from its marks'
current versions, revise a rejected item as its next revision, record the time spent on it. State
changes (submit, approve, reject, revise, staleness, replacing) belong to annotator.compiling.lifecycle."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import F
from django.http import Http404

from annotator import hotpath
from annotator.access.scopes import in_member_projects
from annotator.compiling import lifecycle
from annotator.compiling.modelview_queue import model_view_create, model_view_rerender
from annotator.compiling.phrasings import phrasebook_load
from annotator.compiling.qa import CompiledItem, Template, TemplateError, get_template
from annotator.compiling.qa.base import default_seed, mark_snapshot
from annotator.compiling.qa.wording import using_phrasebook
from annotator.compiling.reads import reads_provenance, reads_recorded
from annotator.exceptions import Conflict
from annotator.models import Item, Mark

# One request may add at most this much active time to an item: the workspace sends what it
# measured since its last report, and a larger figure is a clock or a client gone wrong.
MAX_EFFORT_REPORT_S = 4 * 3600


@dataclass(frozen=True)
class Compiled:
    """An item compiled in memory: what item_save stores, or what a preview shows."""

    template: Template
    seed: int
    marks: list[Mark]
    item: CompiledItem
    # provenance["reads"]: per mark, the facts the template read (annotator.compiling.reads)
    reads: dict[str, list[str]]

    def provenance(self, **extra: Any) -> dict[str, Any]:
        """What an item compiled from this keeps: template, seed, marks snapshot, what it read."""
        return {
            "template": self.template.name,
            "seed": self.seed,
            "marks": [mark_snapshot(m) for m in self.marks],
            "reads": self.reads,
            **self.item.provenance,
            **extra,
        }


def marks_for_item(*, user: Any, mark_ids: list[int]) -> list[Mark]:
    """The user's own marks of one scene still assigned to them, in the order given (templates match
    parts in that order). Another's mark reads as unknown, like a missing one, so ids do not leak."""
    # Whether the scene is still assigned comes with the marks (one round trip fewer a compile);
    # the scene row itself is not read: the item needs only its id. Read by hand (annotator.hotpath).
    marks = hotpath.marks_to_compile(user=user, mark_ids=mark_ids)
    if len(marks) != len(set(mark_ids)) or not marks:
        raise ValidationError({"mark_ids": "unknown mark id(s): items are compiled from your own marks"})
    marks.sort(key=lambda m: mark_ids.index(m.id))
    if len({m.scene_id for m in marks}) != 1:
        raise ValidationError({"mark_ids": "all marks of an item come from one scene"})
    drafts = [m.id for m in marks if m.draft]
    if drafts:  # a tracked trajectory is the tracker's guess until its author confirms it
        raise ValidationError({"mark_ids": f"mark {drafts[0]} is a draft trajectory: confirm it before compiling"})
    if not marks[0].assigned:  # type: ignore[attr-defined]
        raise PermissionDenied("this scene is no longer assigned to you")
    return marks


def compile_marks(*, task: str, marks: list[Mark], seed: int | None = None) -> Compiled:
    """The item these marks make, phrased from the enabled phrasings. Nothing is written. Raises
    ValidationError with the field the annotator must fix."""
    try:
        template = get_template(task)
        seed = default_seed(marks, task) if seed is None else seed
        with using_phrasebook(phrasebook_load(task=task)), reads_recorded(marks) as seen:
            compiled = template.compile(marks, random.Random(seed))
    except TemplateError as exc:
        raise ValidationError({exc.field: str(exc)}) from exc
    declared = [(f["mark"], f["key"]) for f in template.fact_fields(marks)]
    return Compiled(template, seed, marks, compiled, reads_provenance(seen, declared))


def item_save(*, user: Any, compiled: Compiled, active_seconds: float = 0.0, **provenance: Any) -> Item:
    """Store a compiled item as a draft and queue its model view. `provenance` adds keys (what it
    replaces, how a batch balanced it)."""
    c, item = compiled, compiled.item
    draft = lifecycle.item_create_draft(
        marks=c.marks,
        scene_id=c.marks[0].scene_id,
        author=user,
        task=c.template.task,
        question=item.question,
        options=item.options,
        answer=item.answer,
        answer_format=item.answer_format,
        template=c.template.name,
        seed=c.seed,
        provenance=c.provenance(**provenance),
        active_seconds=_effort(active_seconds),
    )
    model_view_create(item=draft)
    return draft


@transaction.atomic
def item_compile(
    *, user: Any, task: str, mark_ids: list[int], seed: int | None = None, active_seconds: float = 0.0
) -> Item:
    """Build a draft item from the user's own marks of one scene; `active_seconds` is the time the
    annotator spent making it. Raises ValidationError with the field the annotator must fix."""
    marks = marks_for_item(user=user, mark_ids=mark_ids)
    return item_save(
        user=user, compiled=compile_marks(task=task, marks=marks, seed=seed), active_seconds=active_seconds
    )


@transaction.atomic
def item_recompile(*, user: Any, item_id: int, active_seconds: float = 0.0) -> Item:
    """A fresh draft of the same task from the same marks, in the same order, at their current
    versions (so with the seed those give); the old item is replaced (lifecycle.item_replace)."""
    mine = in_member_projects(user=user, qs=Item.objects.filter(id=item_id, author=user), path="scene__project")
    old = mine.select_for_update().first()
    if old is None:
        raise Http404("no such item")
    lifecycle.item_check_replaceable(item=old)
    if old.state == Item.State.DRAFT and old.revision > 1:
        # A revision keeps its id and its earlier rounds: compiled again in place.
        compiled = compile_marks(task=old.task, marks=item_marks_in_order(item=old), seed=old.seed)
        revised = lifecycle.item_refresh_revision(item=old, fields=_revision_fields(compiled))
        if active_seconds:
            Item.objects.filter(id=revised.id).update(active_seconds=F("active_seconds") + _effort(active_seconds))
        model_view_rerender(item=revised)
        return revised
    mark_ids = [m.id for m in item_marks_in_order(item=old, gone_message="select other marks and compile a new item")]
    compiled = compile_marks(task=old.task, marks=marks_for_item(user=user, mark_ids=mark_ids))
    new = item_save(user=user, compiled=compiled, active_seconds=active_seconds, recompiled_from=old.id)
    lifecycle.item_replace(old=old, new=new)
    return new


def item_marks_in_order(*, item: Item, gone_message: str = "compile a new item instead") -> list[Mark]:
    """The item's marks in the order it was compiled from (templates match parts in that order).
    A mark copied on write (Mark.copied_from) takes the place of the one it copies. Raises
    ValidationError naming the marks that were deleted."""
    order = [m["id"] for m in item.provenance.get("marks", [])]
    marks = list(Mark.objects.select_related("scene", "satellite_image").filter(items=item))
    place = {m.id: m for m in marks}
    for mark in marks:  # follow copies back to the mark the provenance names (a copy of a copy too)
        source, seen = mark.copied_from_id, 0
        while source is not None and seen < 100:
            place.setdefault(source, mark)
            source = Mark.objects.filter(id=source).values_list("copied_from_id", flat=True).first()
            seen += 1
    ordered = [place[i] for i in order if i in place]
    gone = [f"#{i}" for i in order if i not in place]
    if gone or len({m.id for m in ordered}) != len(marks):
        missing = ", ".join(gone) or "a mark"
        raise ValidationError({"mark_ids": f"mark {missing} of this item was deleted; {gone_message}"})
    return ordered


def _revision_fields(compiled: Compiled) -> dict[str, Any]:
    c = compiled.item
    return {
        "question": c.question,
        "options": c.options,
        "answer": c.answer,
        "answer_format": c.answer_format,
        "template": compiled.template.name,
        "seed": compiled.seed,
        "provenance": compiled.provenance(),
    }


@transaction.atomic
def item_revise(
    *, user: Any, item_id: int, note: str = "", seed: int | None = None, active_seconds: float = 0.0
) -> Item:
    """The author's next revision of a rejected item: compiled again from its marks as they are
    now (in the order first given), same task, back to draft for the author to check and submit.
    Earlier revisions and their reviews stay as they were. Raises PermissionDenied for anyone
    but the author, Conflict unless the item is rejected, ValidationError when the marks no longer
    make an item (a mark was deleted: compile a new item instead)."""
    item = Item.objects.select_for_update().get(id=item_id)
    if item.author_id != user.id:
        raise PermissionDenied("only its author can revise an item")
    if item.state != Item.State.REJECTED:
        raise Conflict(f"the item is {item.state.replace('_', ' ')}; only rejected items can be revised")
    marks = item_marks_in_order(item=item)
    compiled = compile_marks(task=item.task, marks=marks, seed=item.seed if seed is None else seed)
    reason = note.strip() or "revised after the rejection"
    revised = lifecycle.item_revise(item=item, actor=user, reason=reason, fields=_revision_fields(compiled))
    if active_seconds:
        Item.objects.filter(id=revised.id).update(active_seconds=F("active_seconds") + _effort(active_seconds))
    model_view_rerender(item=revised)  # the new revision's question and options are drawn anew
    return revised


@transaction.atomic
def item_withdraw(*, user: Any, item_id: int, reason: str = "") -> Item:
    """The author gives up a rejected item (lifecycle.item_withdraw): it never returns to a queue.
    PermissionDenied for anyone but the author, Conflict unless the item is rejected."""
    item = Item.objects.select_for_update().filter(id=item_id).first()
    if item is None:
        raise Http404("no such item")
    if item.author_id != user.id:
        raise PermissionDenied("only its author can withdraw an item")
    return lifecycle.item_withdraw(item=item, actor=user, reason=reason.strip() or "withdrawn by its author")


def _effort(seconds: float) -> float:
    if not 0 <= seconds <= MAX_EFFORT_REPORT_S:
        raise ValidationError({"active_seconds": f"a report of active time is 0 to {MAX_EFFORT_REPORT_S} s"})
    return round(float(seconds), 1)


@transaction.atomic
def item_effort_add(*, user: Any, item_id: int, seconds: float) -> Item:
    """Add active time to one of the user's items (one UPDATE, so concurrent reports all count)
    while the author still works on it: a draft, a rejected item, or one just submitted (the submit
    reports its last seconds). Approved and released items are the benchmark's record: 409."""
    mine = Item.objects.filter(id=item_id, author=user)
    open_states = (Item.State.DRAFT, Item.State.REJECTED, Item.State.IN_REVIEW)
    added = F("active_seconds") + _effort(seconds)
    if not mine.filter(state__in=open_states).update(active_seconds=added):
        item = mine.first()
        if item is None:
            raise Http404("no such item")
        raise Conflict(f"this item is {item.get_state_display().lower()}: effort is recorded while it is worked on")
    return Item.objects.get(id=item_id)
