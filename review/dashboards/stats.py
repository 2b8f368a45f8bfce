"""Progress and quality figures for the dashboards, each from one or two aggregate queries (never
a query per row). Rounds are (item, revision) pairs; a round's outcome is read from the audit log,
which records every settling move (approve, reject, and the adjudicator's)."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, F, Q, QuerySet
from django.db.models.functions import TruncDate
from django.utils import timezone

from annotator.access.roles import REVIEWER
from annotator.models import Item
from review.models import Adjudication, ItemEvent, RejectionReason, Review, ReviewAssignment, ReviewPolicy

APPROVING = ("approve", "adjudicate_approve")
REJECTING = ("reject", "adjudicate_reject")
TASK_LABELS = dict(Item.Task.choices)


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _of(qs: QuerySet[Any], path: str, projects: Any) -> QuerySet[Any]:
    """`qs` narrowed to the projects (a subquery of project ids; None: every project) through `path`."""
    return qs if projects is None else qs.filter(**{f"{path}_id__in": projects})


def queue_sizes(*, policy: ReviewPolicy, projects: Any = None) -> dict[str, Any]:
    """Items per state, each reviewer's open and done assignments, and items in review that have
    fewer reviewers than the policy asks (there were not enough when they were submitted); of the
    given projects' items (every project's when None)."""
    items = _of(Item.objects.all(), "scene__project", projects)
    states = dict(items.values_list("state").annotate(n=Count("id")).values_list("state", "n"))
    mine = Q() if projects is None else Q(review_assignments__item__scene__project_id__in=projects)
    people = _of(get_user_model().objects.filter(groups__name=REVIEWER), "project_memberships__project", projects)
    reviewers = list(
        people.distinct()
        .annotate(
            open=Count("review_assignments", filter=Q(review_assignments__done_at__isnull=True) & mine, distinct=True),
            done=Count("review_assignments", filter=Q(review_assignments__done_at__isnull=False) & mine, distinct=True),
        )
        .order_by("username")
        .values("id", "username", "open", "done")
    )
    current = Q(review_assignments__revision=F("revision"), review_assignments__gold=False)
    understaffed = (
        items.filter(state=Item.State.IN_REVIEW)
        .annotate(n=Count("review_assignments", filter=current))
        .filter(n__lt=policy.reviewers_per_item)
        .count()
    )
    return {
        "states": [(label, states.get(value, 0)) for value, label in Item.State.choices],
        "reviewers": reviewers,
        "understaffed": understaffed,
    }


@dataclass
class ReviewerRow:
    id: int
    username: str
    decided: int = 0
    last_7_days: int = 0
    approvals: int = 0
    median_answer_s: float | None = None
    median_decision_s: float | None = None


def reviewer_throughput(*, days: int = 7, projects: Any = None) -> list[ReviewerRow]:
    """Per reviewer: decided reviews (all, and in the last `days`), approvals, and the median
    seconds to the blind answer and from the key to the decision."""
    since = timezone.now() - timedelta(days=days)
    decided = _of(Review.objects.filter(decided_at__isnull=False), "item__scene__project", projects)
    rows = decided.values_list(
        "reviewer_id", "reviewer__username", "decided_at", "decision", "answer_seconds", "decision_seconds"
    )
    out: dict[int, ReviewerRow] = {}
    times: dict[int, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    for reviewer_id, username, decided_at, decision, answer_s, decision_s in rows:
        row = out.setdefault(reviewer_id, ReviewerRow(reviewer_id, username))
        row.decided += 1
        row.last_7_days += decided_at is not None and decided_at >= since
        row.approvals += decision == Review.Decision.APPROVE
        if answer_s is not None:
            times[reviewer_id][0].append(answer_s)
        if decision_s is not None:
            times[reviewer_id][1].append(decision_s)
    for reviewer_id, row in out.items():
        row.median_answer_s = _median(times[reviewer_id][0])
        row.median_decision_s = _median(times[reviewer_id][1])
    return sorted(out.values(), key=lambda r: r.username)


def reviews_per_day(*, days: int = 14, projects: Any = None) -> list[tuple[str, int]]:
    since = (timezone.now() - timedelta(days=days - 1)).date()
    counts = dict(
        _of(Review.objects.filter(decided_at__date__gte=since), "item__scene__project", projects)
        .annotate(day=TruncDate("decided_at"))
        .values_list("day")
        .annotate(n=Count("id"))
        .values_list("day", "n")
    )
    return [(str(since + timedelta(days=k)), counts.get(since + timedelta(days=k), 0)) for k in range(days)]


def _rate(rejected: int, settled: int) -> float | None:
    return rejected / settled if settled else None


def rejection_rates(*, author: Any = None, projects: Any = None) -> dict[str, list[dict[str, Any]]]:
    """Settled rounds and the share rejected, per task and per annotator (one query on the log)."""
    events = _of(ItemEvent.objects.filter(action__in=APPROVING + REJECTING), "item__scene__project", projects)
    if author is not None:
        events = events.filter(item__author=author)
    by_task: dict[str, Counter[str]] = defaultdict(Counter)
    by_author: dict[str, Counter[str]] = defaultdict(Counter)
    for task, username, action in events.values_list("item__task", "item__author__username", "action"):
        outcome = "rejected" if action in REJECTING else "approved"
        by_task[task][outcome] += 1
        by_author[username][outcome] += 1

    def table(groups: dict[str, Counter[str]], names: dict[str, str]) -> list[dict[str, Any]]:
        return [
            {
                "name": names.get(key, key),
                "settled": c["approved"] + c["rejected"],
                "rejected": c["rejected"],
                "rate": _rate(c["rejected"], c["approved"] + c["rejected"]),
            }
            for key, c in sorted(groups.items())
        ]

    return {"task": table(by_task, TASK_LABELS), "annotator": table(by_author, {})}


def rejection_reasons(*, author: Any = None, projects: Any = None) -> dict[str, Any]:
    """Like VLRS-Bench's table: per reason, the rejected rounds that name it and their share of all
    rejected rounds (a round can name several reasons, so shares can add up to more than 100 %)."""
    reviews = Review.objects.filter(decision=Review.Decision.REJECT, gold=False)
    finals = Adjudication.objects.filter(decision=Adjudication.Decision.REJECT)
    rejected = ItemEvent.objects.filter(action__in=REJECTING)
    if projects is not None:
        reviews, finals = _of(reviews, "item__scene__project", projects), _of(finals, "item__scene__project", projects)
        rejected = _of(rejected, "item__scene__project", projects)
    if author is not None:
        reviews, finals = reviews.filter(item__author=author), finals.filter(item__author=author)
        rejected = rejected.filter(item__author=author)
    rounds: dict[str, set[tuple[int, int]]] = defaultdict(set)
    for source in (reviews, finals):
        for item_id, revision, codes in source.values_list("item_id", "revision", "reasons"):
            for code in codes:
                rounds[code].add((item_id, revision))
    total = rejected.count()
    rows = [
        {
            "code": r.code,
            "label": r.label,
            "description": r.description,
            "group": r.get_group_display(),
            "rounds": len(rounds.get(r.code, ())),
            "share": _rate(len(rounds.get(r.code, ())), total),
        }
        for r in RejectionReason.objects.order_by("position", "id")
        if r.active or rounds.get(r.code)
    ]
    return {"rows": rows, "total": total}


@dataclass
class GoldRow:
    id: int
    username: str
    answered: int
    correct: int
    challenged: int
    accuracy: float | None
    flagged: bool


def gold_accuracy(*, policy: ReviewPolicy, reviewer: Any = None, projects: Any = None) -> list[GoldRow]:
    """Each reviewer's blind answers on gold checks; flagged below the policy's accuracy once they
    answered enough. `challenged`: gold checks they rejected (the gold key may need a look)."""
    qs = _of(Review.objects.filter(gold=True), "item__scene__project", projects)
    if reviewer is not None:
        qs = qs.filter(reviewer=reviewer)
    rows = (
        qs.values("reviewer_id", "reviewer__username")
        .annotate(
            n=Count("id"),
            correct=Count("id", filter=Q(blind_correct=True)),
            challenged=Count("id", filter=Q(decision=Review.Decision.REJECT)),
        )
        .order_by("reviewer__username")
    )
    out = []
    for row in rows:
        accuracy = row["correct"] / row["n"] if row["n"] else None
        flagged = accuracy is not None and row["n"] >= policy.gold_min_answers and accuracy < policy.gold_min_accuracy
        out.append(
            GoldRow(
                row["reviewer_id"],
                row["reviewer__username"],
                row["n"],
                row["correct"],
                row["challenged"],
                accuracy,
                flagged,
            )
        )
    return out


def reviewer_summary(*, reviewer: Any, policy: ReviewPolicy) -> dict[str, Any]:
    """A reviewer's own figures: queue, pace, decisions, blind answers against keys, how often
    co-reviewers decided the same, and accuracy on gold checks."""
    assignments = ReviewAssignment.objects.filter(reviewer=reviewer).aggregate(
        open=Count("id", filter=Q(done_at__isnull=True)), done=Count("id", filter=Q(done_at__isnull=False))
    )
    mine = list(
        Review.objects.filter(reviewer=reviewer, gold=False).values_list(
            "item_id", "revision", "decision", "blind_correct", "answer_seconds", "decision_seconds"
        )
    )
    rounds = {(i, r): d for i, r, d, *_ in mine if d != Review.Decision.PENDING}
    others = Review.objects.filter(gold=False).exclude(reviewer=reviewer).exclude(decision=Review.Decision.PENDING)
    shared = [
        rounds[(i, r)] == d
        for i, r, d in others.filter(item_id__in={i for i, _ in rounds}).values_list("item_id", "revision", "decision")
        if (i, r) in rounds
    ]
    gold = gold_accuracy(policy=policy, reviewer=reviewer)
    return {
        "open": assignments["open"],
        "done": assignments["done"],
        "decided": len(rounds),
        "approvals": sum(d == Review.Decision.APPROVE for d in rounds.values()),
        "blind_match": _rate(sum(bool(c) for _, _, _, c, _, _ in mine), len(mine)),
        "median_answer_s": _median([s for *_, s, _ in mine if s is not None]),
        "median_decision_s": _median([s for *_, s in mine if s is not None]),
        "agreement": _rate(sum(shared), len(shared)),
        "agreement_n": len(shared),
        "gold": gold[0] if gold else None,
    }


def author_summary(*, author: Any) -> dict[str, Any]:
    """An annotator's own figures: items per state and per task, how their rounds settled, and
    the reasons their rejections named."""
    states = dict(
        Item.objects.filter(author=author).values_list("state").annotate(n=Count("id")).values_list("state", "n")
    )
    per_task = (
        Item.objects.filter(author=author)
        .values("task")
        .annotate(
            n=Count("id"),
            approved=Count("id", filter=Q(state=Item.State.APPROVED)),
            rejected=Count("id", filter=Q(state=Item.State.REJECTED)),
            revised=Count("id", filter=Q(revision__gt=1)),
        )
        .order_by("task")
    )
    return {
        "states": [(label, states.get(value, 0)) for value, label in Item.State.choices],
        "total": sum(states.values()),
        "per_task": [{**row, "label": TASK_LABELS.get(row["task"], row["task"])} for row in per_task],
        "rates": rejection_rates(author=author)["task"],
        "reasons": [r for r in rejection_reasons(author=author)["rows"] if r["rounds"]],
        "rejected_items": Item.objects.filter(author=author, state=Item.State.REJECTED).select_related("scene"),
    }
