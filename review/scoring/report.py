"""Scoring a set of predictions against a frozen release: the paper's table (tasks, dimensions,
overall as means of task scores) with random and human rows beside the model's, clustered
standard errors, chance-adjusted and circular accuracy, choice bias, a per-item log, and a paired
comparison of two submissions on the same items."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from .extraction import extract
from .metrics import (
    chance,
    chance_adjusted,
    choice_bias,
    clustered_se,
    item_value,
    normal_two_sided_p,
    se_note,
)
from .predictions import Predictions

TASK_ORDER_KEY = "task"


@dataclass(frozen=True)
class ItemLog:
    id: str
    task: str
    reply: Any
    read: Any  # what extraction made of the reply (an option text, a number), None if nothing
    rule: str
    score: float


@dataclass
class TaskRow:
    task: str
    dimension: str
    n: int
    score: float
    se: float | None  # clustered by scene; None with too few scenes (se_note says why)
    chance: float | None  # the random row; None for numbers and times
    chance_adjusted: float | None
    human: float | None = None
    circular: float | None = None  # every rotation of an item right; None: no rotation predicted
    scenes: int = 0

    @property
    def se_note(self) -> str:
        return se_note(self.se, self.scenes)


@dataclass
class ScoreReport:
    tasks: dict[str, TaskRow]
    dimensions: dict[str, float]
    overall: float
    overall_se: float | None
    n: int
    random_dimensions: dict[str, float | None]
    random_overall: float | None
    human_dimensions: dict[str, float] = field(default_factory=dict)
    human_overall: float | None = None
    missing: list[str] = field(default_factory=list)
    unparseable: list[ItemLog] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    bias: dict[str, dict[str, float]] = field(default_factory=dict)
    key_bias: dict[str, dict[str, float]] = field(default_factory=dict)
    log: list[ItemLog] = field(default_factory=list)
    scenes: int = 0
    circular_overall: float | None = None  # mean of the tasks' circular scores; None: not scored
    # The same items answered with the CVAA alignment prior (question_cvaa), and that row minus
    # this one; None when no with-CVAA prediction was given.
    cvaa: ScoreReport | None = None
    cvaa_difference: Comparison | None = None

    @property
    def overall_se_note(self) -> str:
        return se_note(self.overall_se, self.scenes)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _logs(items: list[dict[str, Any]], answers: dict[str, Any]) -> list[ItemLog]:
    logs = []
    for item in items:
        reply = answers.get(item["id"])
        found = extract(item, reply)
        # a number is read as a Decimal (exact); the log keeps it as a JSON number
        read = float(found.value) if isinstance(found.value, Decimal) else found.value
        logs.append(ItemLog(item["id"], item["task"], reply, read, found.rule, item_value(item, found)))
    return logs


def _by_task(items: list[dict[str, Any]], values: list[float]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = defaultdict(list)
    for item, value in zip(items, values, strict=True):
        out[item["task"]].append(value)
    return dict(sorted(out.items()))


def _dimension_means(task_scores: dict[str, float | None], dimension_of: dict[str, str]) -> dict[str, float | None]:
    grouped: dict[str, list[float | None]] = defaultdict(list)
    for task, value in task_scores.items():
        grouped[dimension_of[task]].append(value)
    return {
        d: (None if any(v is None for v in vs) else _mean([v for v in vs if v is not None]))
        for d, vs in sorted(grouped.items())
    }


def _scene(item: dict[str, Any]) -> str:
    return str(item.get("scene", item["id"]))


def _macro_se(items: list[dict[str, Any]], values: list[float]) -> float | None:
    """Clustered (by scene) standard error of the mean of task means."""
    return clustered_se(values, [i["task"] for i in items], [_scene(i) for i in items])


def _task_se(items: list[dict[str, Any]], values: list[float]) -> float | None:
    return clustered_se(values, ["task"] * len(values), [_scene(i) for i in items])


def _positions(items: list[dict[str, Any]], chosen: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Choice bias of the options chosen (by their position), grouped by option count."""
    groups: dict[int, list[int]] = defaultdict(list)
    for item in items:
        options = [str(o).lower() for o in item.get("options") or []]
        value = chosen.get(item["id"])
        if options and value is not None and str(value).lower() in options:
            groups[len(options)].append(options.index(str(value).lower()))
    return {f"{n}-option": choice_bias(pos, n) for n, pos in sorted(groups.items())}


def _human(items: list[dict[str, Any]], human: dict[str, list[Any]]) -> dict[str, float]:
    """Each item's human score is the mean over its reviewers' blind answers; tasks as usual."""
    values = []
    for item in items:
        replies = human.get(item["id"]) or []
        values.append(_mean([item_value(item, extract(item, r)) for r in replies]) if replies else 0.0)
    return {t: _mean(v) for t, v in _by_task(items, values).items()}


def _circular(
    items: list[dict[str, Any]], variants: list[dict[str, Any]], answers: dict[str, Any]
) -> dict[str, float | None]:
    """Per task, the mean over items of the item's worst score over its orderings: the original
    and every rotation of its options (a choice counts only when right in every one). An item with
    no rotations (numbers, times) has one ordering and keeps its score. Not scored (empty) when no
    rotation was predicted at all; a missing rotation of a scored submission counts wrong."""
    if not any(v["id"] in answers for v in variants):
        return {}
    worst: dict[str, float] = {i["id"]: item_value(i, extract(i, answers.get(i["id"]))) for i in items}
    for variant in variants:
        if variant["circular_of"] in worst:
            value = item_value(variant, extract(variant, answers.get(variant["id"])))
            worst[variant["circular_of"]] = min(worst[variant["circular_of"]], value)
    per_task: dict[str, list[float]] = defaultdict(list)
    for item in items:
        per_task[item["task"]].append(worst[item["id"]])
    return {t: _mean(v) for t, v in per_task.items()}


def score(
    items: list[dict[str, Any]],
    predictions: Predictions,
    *,
    variants: list[dict[str, Any]] | None = None,
    human: dict[str, list[Any]] | None = None,
) -> ScoreReport:
    """Score `predictions` on the release's `items` (missing and unreadable answers count wrong and
    are listed). `variants`: rotated copies of multiple-choice items (`circular_of` names the
    original) when the circular variant was predicted too. `human`: reviewers' blind answers."""
    answers = predictions.answers
    logs = _logs(items, answers)
    values = [log.score for log in logs]
    per_task_values = _by_task(items, values)
    dimension_of = {i["task"]: i["dimension"] for i in items}
    items_of: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        items_of[item["task"]].append(item)
    human_tasks = _human(items, human) if human else {}
    circular = _circular(items, variants or [], answers) if variants else {}
    tasks = {}
    for task, task_values in per_task_values.items():
        chances = [chance(i) for i in items_of[task]]
        level = None if any(c is None for c in chances) else _mean([c for c in chances if c is not None])
        accuracy = _mean(task_values)
        tasks[task] = TaskRow(
            task=task,
            dimension=dimension_of[task],
            n=len(task_values),
            score=accuracy,
            se=_task_se(items_of[task], task_values),
            chance=level,
            chance_adjusted=chance_adjusted(accuracy, level) if level is not None and level < 1 else None,
            human=human_tasks.get(task),
            circular=circular.get(task),
            scenes=len({_scene(i) for i in items_of[task]}),
        )
    random_tasks = {t: row.chance for t, row in tasks.items()}
    random_known = [v for v in random_tasks.values() if v is not None]
    read = {log.id: log.read for log in logs}
    keys = {i["id"]: i["answer"] for i in items}
    return ScoreReport(
        tasks=tasks,
        dimensions={
            d: v
            for d, v in _dimension_means({t: r.score for t, r in tasks.items()}, dimension_of).items()
            if v is not None
        },
        overall=_mean([row.score for row in tasks.values()]),
        overall_se=_macro_se(items, values) if items else None,
        scenes=len({_scene(i) for i in items}),
        n=len(items),
        random_dimensions=_dimension_means(dict(random_tasks), dimension_of),
        random_overall=_mean(random_known) if len(random_known) == len(random_tasks) else None,
        human_dimensions={d: v for d, v in _dimension_means(dict(human_tasks), dimension_of).items() if v is not None}
        if human_tasks
        else {},
        human_overall=_mean(list(human_tasks.values())) if human_tasks else None,
        missing=[i["id"] for i in items if i["id"] not in answers],
        unparseable=[log for log in logs if log.reply is not None and log.read is None],
        duplicates=predictions.duplicates,
        unknown=predictions.unknown,
        bias=_positions(items, read),
        key_bias=_positions(items, keys),
        log=logs,
        circular_overall=_mean([row.circular for row in tasks.values() if row.circular is not None])
        if circular
        else None,
    )


@dataclass
class Comparison:
    """B minus A on the same items: the overall (mean of task scores) difference, its standard
    error clustered by scene, and a two-sided p-value (None, like the SE, with too few scenes);
    per-task differences beside it."""

    difference: float
    se: float | None
    z: float | None
    p_value: float | None
    tasks: dict[str, float]
    scenes: int = 0

    @property
    def se_note(self) -> str:
        return se_note(self.se, self.scenes)


def compare(items: list[dict[str, Any]], a: Predictions, b: Predictions) -> Comparison:
    """Paired comparison: both submissions are scored item by item, so the scene-to-scene
    difficulty that both share cancels out of the difference."""
    va = [log.score for log in _logs(items, a.answers)]
    vb = [log.score for log in _logs(items, b.answers)]
    diffs = [y - x for x, y in zip(va, vb, strict=True)]
    per_task = {t: _mean(v) for t, v in _by_task(items, diffs).items()}
    difference = _mean(list(per_task.values()))
    se = _macro_se(items, diffs) if items else None
    if se is None or se == 0:  # no error to divide by: a z would be made up
        z, p = None, None
    else:
        z = difference / se
        p = normal_two_sided_p(z)
    return Comparison(
        difference=difference, se=se, z=z, p_value=p, tasks=per_task, scenes=len({_scene(i) for i in items})
    )


def score_variants(
    items: list[dict[str, Any]],
    plain: Predictions,
    cvaa: Predictions | None,
    *,
    variants: list[dict[str, Any]] | None = None,
    human: dict[str, list[Any]] | None = None,
) -> ScoreReport:
    """The plain row, and with with-CVAA predictions the "with CVAA" row (the same metrics on the
    same items: a missing answer counts wrong in either) and the paired difference, with CVAA minus
    plain, per task and overall."""
    report = score(items, plain, variants=variants, human=human)
    if cvaa is not None and cvaa.answers:
        report.cvaa = score(items, cvaa, variants=variants, human=human)
        report.cvaa_difference = compare(items, plain, cvaa)
    return report
