"""Blind answers against keys, by the benchmark's own rules: the answer is read the way a model's
reply is (review.scoring.extraction) and scored with the task's metric (accuracy, MRA for counts,
ACC@1s for times). A blind answer *matches* the key when it scores full marks."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

from annotator.models import Item
from review.scoring.extraction import extract
from review.scoring.metrics import item_value


def _record(item: Item) -> dict[str, Any]:
    return {"answer": item.answer, "answer_format": item.answer_format, "options": item.options}


def blind_answer_clean(*, item: Item, answer: str) -> str:
    """The answer as stored; raises ValidationError when it is empty or cannot be read at all
    (a reviewer's typo should be caught, not scored as wrong)."""
    answer = answer.strip()
    if not answer:
        raise ValidationError({"blind_answer": "answer the question before seeing the key"})
    if item.options:
        chosen = [str(o) for o in item.options if str(o).lower() == answer.lower()]
        if not chosen:
            raise ValidationError({"blind_answer": f"choose one of: {', '.join(map(str, item.options))}"})
        return chosen[0]
    if not extract(_record(item), answer).parsed:
        what = "a number" if item.answer_format == Item.AnswerFormat.NUMBER else "a time in seconds (or mm:ss)"
        raise ValidationError({"blind_answer": f"give {what}"})
    return answer


def blind_score(*, item: Item, answer: str) -> float:
    """The answer's score in [0, 1] against the item's key."""
    record = _record(item)
    return float(item_value(record, extract(record, answer)))
