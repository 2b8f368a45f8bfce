"""Annotators compiling items: a session's marks with "compile all" (keys balanced per task within the
batch), another session's marks one item at a time for the tasks still short of their quota."""

from __future__ import annotations

import random
from collections import defaultdict
from itertools import pairwise
from typing import Any

from django.core.exceptions import ValidationError

from annotator.compiling.audit import truth_of
from annotator.compiling.batch import items_compile_all
from annotator.compiling.services import item_compile
from annotator.models import Item

from . import Tally, options_of
from .drawing import Drawer, draw_kit, update
from .scenes import team_member

T = Item.Task
# Each task gets at least this many items per option, so the goal applies to every lettered task.
MIN_PER_OPTION = 2


def quotas(items_per_task: int, tasks: list[str] | None = None) -> dict[str, int]:
    """Items to submit per task (every task, or `tasks`): `items_per_task`, and at least
    MIN_PER_OPTION per option so that the goal applies."""
    return {t: max(items_per_task, MIN_PER_OPTION * options_of(t)) for t in T.values if not tasks or t in tasks}


def _single_sets(task: str, kit: dict[str, list[Any]], rng: random.Random) -> list[list[Any]]:
    """The mark sets an annotator picks by hand for one task from a session's marks."""
    regions, spots, tracks = kit["regions"], kit["spots"], kit["tracks"]
    targets = spots + tracks
    if task in (T.TARGET_VISIBILITY, T.ZONE_COUNTING, T.TEMPORAL_GROUNDING):
        return [[r] for r in regions]
    if task == T.SCENE_ASSOCIATION:
        return [[r, *rng.sample([o for o in regions if o is not r], rng.randint(0, 2))] for r in regions
                if r.time_end is not None]  # fmt: skip
    if task == T.EVENT_GEOLOCALIZATION:
        return [[s] for s in spots if s.facts.get("event")]
    if task == T.TRAJECTORY_MATCHING:
        return [[t, *rng.sample([o for o in tracks if o is not t], min(rng.randint(0, 2), len(tracks) - 1))]
                for t in tracks]  # fmt: skip
    if task == T.RELATIVE_DISTANCE:
        return [[t, r] for t in tracks for r in regions]
    if task in (T.RELATIVE_DIRECTION, T.REGION_INTERACTION, T.REGION_REACHABILITY):
        return [[t, r] for t in targets for r in regions]
    if task == T.OCCLUSION_ATTRIBUTION:
        return [[a, b] for a, b in pairwise(regions) if a.facts.get("occlusion")]
    if task == T.SPATIOTEMPORAL_ORDERING:
        return [rng.sample(regions, 3) for _ in range(len(regions))] if len(regions) >= 3 else []
    return []


def fact_holds(item: Any) -> bool:
    """Whether a yes/no item's fact holds, whichever way round its question is asked."""
    return bool(truth_of(item.answer_format, item.answer, item.provenance.get("polarity")))


def _short(drafts: list[Any], wanted: int) -> bool:
    """Whether a task needs more drafts: fewer than wanted, or for yes/no tasks fewer than half of
    them with the fact holding, or not holding (the lead submits as many of each)."""
    if len(drafts) < wanted:
        return True
    if not drafts or drafts[0].answer_format != Item.AnswerFormat.YES_NO:
        return False
    holds = sum(1 for it in drafts if fact_holds(it))
    return min(holds, len(drafts) - holds) < wanted // 2


def compile_items(*, scenes: list[Any], admin: Any, quota: dict[str, int], rng: random.Random,
                  tally: Tally, max_annotators: int = 40) -> dict[str, list[Any]]:  # fmt: skip
    """Annotators take the scenes in turn: a session's marks compiled with "compile all", then a
    second session's marks compiled one item at a time for the tasks still short, until every task
    has its quota of drafts. Returns each task's drafts, in the order they were made."""
    drafts: dict[str, list[Any]] = defaultdict(list)
    member = 0
    while any(_short(drafts[t], q) for t, q in quota.items()) and member < max_annotators:
        user = team_member(member, admin, scenes)
        member += 1
        for scene in scenes:
            d = Drawer(scene=scene, user=user, rng=rng)
            draw_kit(d, regions=rng.randint(4, 6), spots=rng.randint(3, 5), tracks=rng.randint(2, 3))
            result = items_compile_all(user=user, scene_id=scene.id, seed=rng.randrange(2**31),
                                       active_seconds=rng.uniform(300, 900))  # fmt: skip
            tally.batches += 1
            tally.batch_items += len(result.items)
            tally.refused += sum(t.refused for t in result.tally.values())
            for item in result.items:
                drafts[item.task].append(item)
            kit = draw_kit(d, regions=rng.randint(3, 5), spots=rng.randint(2, 4), tracks=rng.randint(2, 4))
            for region in kit["regions"]:  # counted by eye, no instance marks
                update(region, {"facts": {**region.facts, "count": rng.randint(0, 7)}})
            for task, wanted in quota.items():
                for marks in _single_sets(task, kit, rng):
                    if not _short(drafts[task], wanted):
                        break
                    try:
                        item = item_compile(user=user, task=task, mark_ids=[m.id for m in marks],
                                            active_seconds=rng.uniform(20, 240))  # fmt: skip
                    except ValidationError:
                        tally.refused += 1
                        continue
                    tally.singles += 1
                    drafts[task].append(item)
            tally.marks += len(d.marks)
    tally.annotators = member
    return drafts
