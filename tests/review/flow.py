"""Steps of the review flow for tests: a reviewer answers blind, then decides."""

from __future__ import annotations

from typing import Any

from annotator.models import Item
from review.models import Review
from review.reviewing.services import review_decide, review_start


def vote(item: Item, reviewer: Any, answer: str, decision: str, reasons: tuple[str, ...] = (), **kw: Any) -> Review:
    """A reviewer answers blind, then decides."""
    review = review_start(item=item, reviewer=reviewer, blind_answer=answer)
    return review_decide(review=review, reviewer=reviewer, decision=decision, reasons=list(reasons), **kw)
