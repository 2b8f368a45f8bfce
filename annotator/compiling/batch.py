"""Compile every item a scene's marks allow, in one go: for each task, every way the annotator's
marks fill its parts (a region, a target and a region, three regions, ...), minus what already has
an item, through the same compile path; then each task's new items have their keys balanced as a
set (annotator.compiling.balance) before they are saved. Each part takes the kinds of mark that
stand for it (annotator.compiling.spatial: polygons are regions, ellipses and points targets and
places); every combination a template refuses is reported with its marks and the reason."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from annotator.compiling.balance import balance
from annotator.compiling.qa.roles import MAX_MARKS
from annotator.compiling.qa.wording import names_for
from annotator.compiling.qa.zone_counting import instances_for
from annotator.compiling.services import Compiled, compile_marks, item_save
from annotator.compiling.spatial import REGION_KINDS, SPOT_KINDS
from annotator.models import Item, Mark

T = Item.Task
TRACKS = (Mark.Kind.POLYLINE,)
TARGETS = (Mark.Kind.POLYLINE, Mark.Kind.POINT, Mark.Kind.ELLIPSE)
# A scene with many marks has very many combinations (three regions of thirty make 4,060); one
# request compiles at most this many, and says so.
MAX_BATCH = 300
MAX_DECOY_TRACKS = 3


def _of(marks: list[Mark], kinds: tuple[str, ...]) -> list[Mark]:
    return [m for m in marks if m.kind in kinds]


def _occludes(a: Mark, b: Mark) -> bool:
    """Whether a states an occlusion relation to b (the fact is a list, one entry per other mark)."""
    fact = a.facts.get("occlusion")
    return isinstance(fact, list) and any(isinstance(e, dict) and e.get("other") == b.id for e in fact)


def mark_sets(task: str, marks: list[Mark]) -> Iterator[list[Mark]]:
    """The ways these marks (of one image) can fill the task's parts, in the order the template
    matches them; the template still decides whether each makes an item."""
    regions, spots, tracks = _of(marks, REGION_KINDS), _of(marks, SPOT_KINDS), _of(marks, TRACKS)
    pairs = ((t, r) for t in _of(marks, TARGETS) for r in regions if t.id != r.id)
    if task in (T.TARGET_VISIBILITY, T.TEMPORAL_GROUNDING):
        yield from ([r] for r in regions)
    elif task == T.SCENE_ASSOCIATION:
        yield from ([r] for r in regions if r.time_end is not None)
    elif task == T.ZONE_COUNTING:
        # Only the instances it counts: its class, inside it at its time (not every point of the image).
        yield from ([r, *instances_for(r, spots)[: MAX_MARKS - 1]] for r in regions)
    elif task == T.EVENT_GEOLOCALIZATION:
        yield from ([s] for s in spots if s.facts.get("event"))
    elif task == T.TRAJECTORY_MATCHING:
        for t in tracks:
            yield [t, *[o for o in tracks if o.id != t.id][:MAX_DECOY_TRACKS]]
    elif task == T.RELATIVE_DISTANCE:
        yield from ([t, r] for t in tracks for r in regions)
    elif task in (T.RELATIVE_DIRECTION, T.REGION_INTERACTION, T.REGION_REACHABILITY):
        yield from ([t, r] for t, r in pairs)
    elif task == T.OCCLUSION_ATTRIBUTION:
        yield from ([a, b] for a, b in combinations(regions, 2) if _occludes(a, b) or _occludes(b, a))
    elif task == T.SPATIOTEMPORAL_ORDERING:
        yield from (list(trio) for trio in combinations(regions, 3))


@dataclass
class TaskTally:
    created: int = 0
    existing: int = 0
    refused: int = 0
    # Every refused combination: its marks (id, kind, name as the question would call it), the
    # field to fix and the template's reason, so the annotator can fix each one.
    refusals: list[dict[str, Any]] = field(default_factory=list)


def _refusal(marks: list[Mark], exc: ValidationError) -> dict[str, Any]:
    names = names_for(marks)
    field_name, messages = next(iter(exc.message_dict.items())) if hasattr(exc, "error_dict") else ("", exc.messages)
    return {
        "marks": [{"id": m.id, "kind": m.kind, "name": names[id(m)]} for m in marks],
        "field": field_name,
        "reason": "; ".join(messages),
    }


@dataclass
class BatchResult:
    items: list[Item]
    tally: dict[str, TaskTally]
    truncated: bool


def _existing(user: Any, scene_id: int) -> set[tuple[str, frozenset[int]]]:
    """(task, mark ids) of the user's items on the scene that are not replaced: not compiled twice."""
    items = Item.objects.filter(scene_id=scene_id, author=user, replaced_by__isnull=True).prefetch_related("marks")
    return {(it.task, frozenset(m.id for m in it.marks.all())) for it in items}


def _candidates(user: Any, scene_id: int, tally: dict[str, TaskTally]) -> tuple[dict[str, list[Compiled]], bool]:
    # Draft trajectories (not yet confirmed by their author) are not compiled from.
    marks = list(Mark.objects.select_related("satellite_image").filter(scene_id=scene_id, author=user, draft=False))
    by_image: dict[int, list[Mark]] = defaultdict(list)
    for m in marks:
        by_image[m.satellite_image_id].append(m)
    done, budget = _existing(user, scene_id), MAX_BATCH
    found: dict[str, list[Compiled]] = defaultdict(list)
    for task, _ in T.choices:
        for group in by_image.values():
            for chosen in mark_sets(task, group):
                if (task, frozenset(m.id for m in chosen)) in done:
                    tally[task].existing += 1
                    continue
                if budget == 0:
                    return found, True
                budget -= 1
                try:
                    found[task].append(compile_marks(task=task, marks=chosen))
                except ValidationError as exc:
                    tally[task].refused += 1
                    tally[task].refusals.append(_refusal(chosen, exc))
    return found, False


@transaction.atomic
def items_compile_all(*, user: Any, scene_id: int, seed: int = 0, active_seconds: float = 0.0) -> BatchResult:
    """Compile and save every new item the user's marks on the scene allow, keys balanced per task
    with `seed`. `active_seconds` (the time spent preparing them) is shared among the new items."""
    tally: dict[str, TaskTally] = defaultdict(TaskTally)
    found, truncated = _candidates(user, scene_id, tally)
    total = sum(len(c) for c in found.values())
    share = active_seconds / total if total else 0.0
    saved = []
    for task, compiled in found.items():
        balanced = balance([c.item for c in compiled], seed=seed)
        for c, item in zip(compiled, balanced, strict=True):
            saved.append(item_save(user=user, compiled=replace(c, item=item), active_seconds=share, batch_seed=seed))
        tally[task].created = len(compiled)
    return BatchResult(saved, dict(tally), truncated)
