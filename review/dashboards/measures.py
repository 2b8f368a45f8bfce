"""Agreement and the human baseline, from the reviews in the database through the pure functions
of review.quality (statsmodels, krippendorff, scene-clustered bootstrap)."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from itertools import combinations
from typing import Any

from django.db.models import F, QuerySet

from annotator.compiling.catalog import DIMENSIONS, TASK_DIMENSION
from annotator.models import Item
from review.models import Review
from review.quality import agreement
from review.quality.baseline import human_baseline
from review.scoring.extraction import extract

TASK_LABELS = dict(Item.Task.choices)
# Fewest shared rounds for a pair's Cohen's kappa to be shown.
MIN_PAIR_ROUNDS = 2


def _answer_label(answer: str, fmt: str, options: list[Any]) -> str:
    """A blind answer as a category: the option, or the number read from it, so "12" and "12.0"
    agree."""
    value = extract({"answer_format": fmt, "options": options}, answer).value
    if isinstance(value, Decimal):  # numbers are read as decimals: 12.0 and 12 are one value
        value = value.normalize()
    return str(value) if value is not None else answer.strip().lower()


def _measures(ratings: list[list[str]]) -> dict[str, Any]:
    return {
        "rounds": sum(len(r) >= 2 for r in ratings),
        "percent": agreement.percent_agreement(ratings),
        "fleiss": agreement.fleiss_kappa(ratings),
        "alpha": agreement.krippendorff_alpha(ratings),
    }


def _reviews(projects: Any) -> QuerySet[Review]:
    """Reviews of the projects' items (a subquery of project ids; None: every project)."""
    reviews = Review.objects.all()
    return reviews if projects is None else reviews.filter(item__scene__project_id__in=projects)


def agreement_report(*, projects: Any = None) -> dict[str, Any]:
    """Per task and overall: percent agreement, Fleiss' kappa and Krippendorff's alpha on the
    decisions and on the blind answers of each round; Cohen's kappa per pair of reviewers."""
    rows = (
        _reviews(projects).filter(gold=False)
        .exclude(decision=Review.Decision.PENDING)
        .values_list(
            "item_id", "revision", "item__task", "item__answer_format", "item__options", "reviewer__username",
            "decision", "blind_answer",
        )
        .order_by("item_id", "revision", "id")
    )  # fmt: skip
    rounds: dict[tuple[int, int], dict[str, Any]] = {}
    for item_id, revision, task, fmt, options, who, decision, answer in rows:
        entry = rounds.setdefault((item_id, revision), {"task": task, "votes": {}})
        entry["votes"][who] = (decision, _answer_label(answer, fmt, options or []))
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for entry in rounds.values():
        groups[entry["task"]].append(entry)
    table = []
    for task, entries in [*sorted(groups.items()), ("overall", list(rounds.values()))]:
        decisions = [[d for d, _ in e["votes"].values()] for e in entries]
        answers = [[a for _, a in e["votes"].values()] for e in entries]
        table.append(
            {
                "name": "Overall" if task == "overall" else TASK_LABELS.get(task, task),
                "decisions": _measures(decisions),
                "answers": _measures(answers),
            }
        )
    return {"tasks": table, "pairs": _pairs(list(rounds.values()))}


def _pairs(rounds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    shared: dict[tuple[str, str], list[tuple[tuple[str, str], tuple[str, str]]]] = defaultdict(list)
    for entry in rounds:
        for a, b in combinations(sorted(entry["votes"]), 2):
            shared[(a, b)].append((entry["votes"][a], entry["votes"][b]))
    out = []
    for (a, b), votes in sorted(shared.items()):
        if len(votes) < MIN_PAIR_ROUNDS:
            continue
        out.append(
            {
                "pair": f"{a} · {b}",
                "rounds": len(votes),
                "decisions": agreement.cohen_kappa([x[0] for x, _ in votes], [y[0] for _, y in votes]),
                "answers": agreement.cohen_kappa([x[1] for x, _ in votes], [y[1] for _, y in votes]),
            }
        )
    return out


def baseline_report(*, seed: int = 0, projects: Any = None) -> dict[str, Any]:
    """Reviewers' blind answers on approved items, scored against the final keys with the
    benchmark's metrics, per task and per dimension with 95 % intervals resampling scenes."""
    rows = (
        _reviews(projects).filter(item__state=Item.State.APPROVED, revision=F("item__revision"))
        .values_list(
            "item_id", "item__task", "item__scene_id", "item__answer", "item__answer_format", "item__options",
            "blind_answer",
        )
        .order_by("item_id", "id")
    )  # fmt: skip
    items: dict[str, dict[str, Any]] = {}
    answers: dict[str, list[Any]] = defaultdict(list)
    for item_id, task, scene_id, key, fmt, options, answer in rows:
        uid = Item.uid_for(item_id)
        items.setdefault(
            uid,
            {
                "id": uid,
                "task": task,
                "dimension": TASK_DIMENSION[task],
                "scene": str(scene_id),
                "answer": key,
                "answer_format": fmt,
                "options": options or [],
            },
        )
        answers[uid].append(answer)
    records = list(items.values())
    by_task = human_baseline(records, answers, group="task", seed=seed)
    by_dimension = human_baseline(records, answers, group="dimension", seed=seed)

    def table(estimates: dict[str, Any], order: list[str], names: dict[str, str]) -> list[dict[str, Any]]:
        return [
            {"name": names.get(k, k), "value": e.value, "low": e.low, "high": e.high, "n": e.n, "note": e.note}
            for k in [*order, "overall"]
            if (e := estimates.get(k)) is not None
        ]

    dims = {d: d.capitalize() for d in DIMENSIONS}
    return {
        "tasks": table(by_task, [t for t in Item.Task.values if t in by_task], {**TASK_LABELS, "overall": "Overall"}),
        "dimensions": table(by_dimension, [d for d in DIMENSIONS if d in by_dimension], {**dims, "overall": "Overall"}),
        "items": len(records),
        "answers": sum(len(v) for v in answers.values()),
    }
