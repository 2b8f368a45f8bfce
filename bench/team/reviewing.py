"""Submitting and reviewing: each submitted item's model view drawn here (reviewers answer from it),
two reviewers answering blind and deciding through the review services, some rejecting (the author
revises and resubmits), some disagreeing or answering against the key (the adjudicator settles it)."""

from __future__ import annotations

import random
import time
from typing import Any

from django.contrib.auth import get_user_model

from annotator.compiling import lifecycle
from annotator.compiling.modelview_queue import model_view_backfill
from annotator.compiling.services import compile_marks, item_revise
from annotator.models import Item, Mark
from review.models import ReviewAssignment
from review.reviewing.adjudication import item_adjudicate
from review.reviewing.reasons import reasons_active
from review.reviewing.services import review_decide, review_start

from . import Tally
from .compiling import fact_holds

# Shares of first revisions by how their review goes; the rest are approved cleanly, as are revisions.
BOTH_REJECT, DISAGREE, WRONG_BLIND = 0.10, 0.10, 0.05
# Of the items the adjudicator settles, the share rejected (the author then revises).
ADJUDICATION_REJECTS = 0.3


def _render(item: Any, tally: Tally) -> None:
    """Draw the item's model view here (what a worker does after the commit): reviewers answer from it."""
    start = time.perf_counter()
    view = model_view_backfill(item_id=item.id, sync=True)
    tally.render_s += time.perf_counter() - start
    if view.state != view.State.SUCCEEDED:
        raise SystemExit(f"{item.uid}: model view {view.state}: {view.error}")


def submit(*, drafts: dict[str, list[Any]], quota: dict[str, int], rng: random.Random, tally: Tally) -> list[Any]:
    """Each task's quota of drafts, picked at random from all its batches and single compiles,
    submitted by their authors (which assigns the reviewers); the rest stay drafts. For yes/no tasks
    the lead picks as many items whose fact holds as items whose fact does not (the audit's prior:
    a lopsided one scores without looking, and a release holds its surplus back)."""
    chosen = []
    for task, wanted in quota.items():
        pool = list(drafts[task])
        rng.shuffle(pool)
        if pool and pool[0].answer_format == Item.AnswerFormat.YES_NO:
            holds = [it for it in pool if fact_holds(it)]
            fails = [it for it in pool if not fact_holds(it)]
            pool = (
                [it for pair in zip(holds, fails, strict=False) for it in pair]
                + holds[len(fails) :]
                + fails[len(holds) :]
            )
        chosen += pool[:wanted]
    chosen.sort(key=lambda it: it.id)
    for item in chosen:
        lifecycle.item_submit(item=item, actor=item.author)
        _render(item, tally)
    tally.submitted = len(chosen)
    return chosen


def _wrong(item: Any, rng: random.Random) -> str:
    """A blind answer that misses the key: another option, or a number or time off by a fair margin."""
    if item.options:
        return rng.choice([o for o in item.options if o != item.answer])
    value = float(item.answer)
    return f"{value + rng.choice((2, 3, 5)):g}"


def review_round(*, rng: random.Random, tally: Tally) -> int:
    """Every assignment of the items in review answered blind and decided, then every item in
    adjudication settled. Returns how many items were reviewed."""
    reasons = list(reasons_active().values_list("code", flat=True))
    items = list(Item.objects.filter(state=Item.State.IN_REVIEW).order_by("id"))
    for item in items:
        fate = rng.random() if item.revision == 1 else 1.0
        assignments = list(ReviewAssignment.objects.filter(item=item, revision=item.revision, gold=False)
                           .select_related("reviewer").order_by("id"))  # fmt: skip
        for n, assignment in enumerate(assignments):
            second = n == len(assignments) - 1
            answer = item.answer
            decision = "approve"
            if fate < BOTH_REJECT or (fate < BOTH_REJECT + DISAGREE and second):
                decision = "reject"
                answer = _wrong(item, rng) if rng.random() < 0.5 else item.answer
            elif fate < BOTH_REJECT + DISAGREE + WRONG_BLIND and second:
                answer = _wrong(item, rng)
            review = review_start(item=item, reviewer=assignment.reviewer, blind_answer=answer,
                                  answer_seconds=round(rng.uniform(8, 90), 1))  # fmt: skip
            picked = rng.sample(reasons, rng.randint(1, 2)) if decision == "reject" else []
            review_decide(review=review, reviewer=assignment.reviewer, decision=decision, reasons=picked,
                          comment="the key does not match the video" if picked else "",
                          decision_seconds=round(rng.uniform(3, 40), 1))  # fmt: skip
            tally.reviews += 1
    adjudicator = get_user_model().objects.get(username="adjudicator")
    for item in Item.objects.filter(state=Item.State.IN_ADJUDICATION).order_by("id"):
        reject = rng.random() < ADJUDICATION_REJECTS
        item_adjudicate(item=item, adjudicator=adjudicator, decision="reject" if reject else "approve",
                        reason="checked against the video" if not reject else "the marks need fixing",
                        reasons=rng.sample(reasons, 1) if reject else [])  # fmt: skip
        tally.adjudicated += 1
    return len(items)


def _reworded_seed(item: Any) -> int:
    """A seed under which the item's marks compile to another question (previewed, nothing saved):
    the author rewords the question the reviewers rejected (an unchanged resubmission is refused)."""
    order = [m["id"] for m in item.provenance.get("marks", [])]
    marks = sorted(Mark.objects.select_related("scene", "satellite_image").filter(items=item),
                   key=lambda m: order.index(m.id) if m.id in order else len(order))  # fmt: skip
    for attempt in range(1, 40):
        seed = item.seed + 7919 * attempt
        if compile_marks(task=item.task, marks=marks, seed=seed).item.question != item.question:
            return seed
    raise SystemExit(f"{item.uid}: no other wording found for its marks")


def revise_rejected(*, tally: Tally) -> int:
    """Authors revise their rejected items: the question reworded (previewed first), compiled again
    from the marks as the next revision, and submitted again."""
    rejected = list(Item.objects.filter(state=Item.State.REJECTED, replaced_by__isnull=True).order_by("id"))
    for item in rejected:
        tally.rejected += 1
        revised = item_revise(user=item.author, item_id=item.id, note="reworded the question",
                              seed=_reworded_seed(item))  # fmt: skip
        lifecycle.item_submit(item=revised, actor=item.author)
        _render(revised, tally)
        tally.revised += 1
    return len(rejected)


def review_all(*, rng: random.Random, tally: Tally) -> None:
    """Review rounds until every submitted item is approved (revisions are approved cleanly)."""
    for _ in range(5):
        review_round(rng=rng, tally=tally)
        if not revise_rejected(tally=tally):
            break
    review_round(rng=rng, tally=tally)
