"""Turning a key and its wrong options into an item: the seed shuffles the options (so over many
seeds the key lands on every position alike), and options must read differently from each other."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from annotator.compiling.distractors import Candidate, other_choices
from annotator.compiling.errors import TemplateError
from annotator.models import Item

from .base import CompiledItem
from .wording import letters


def _unique(options: Sequence[str]) -> None:
    if len(set(options)) != len(options):
        raise TemplateError("marks", f"two options would read the same ({', '.join(options)}); rename a mark")


def choice_item(
    *, question: str, choices: Sequence[str], answer: str, rng: random.Random, provenance: dict[str, Any]
) -> CompiledItem:
    """Text options from a closed set (sectors, grades, orders, classes): the key and every other
    member of the set as the wrong ones, in seeded order."""
    options = [answer, *other_choices(choices, answer)]
    _unique(options)
    rng.shuffle(options)
    return CompiledItem(
        question=question,
        options=options,
        answer=answer,
        answer_format=Item.AnswerFormat.MULTIPLE_CHOICE,
        provenance={**provenance, "key_position": options.index(answer)},
    )


def lettered_item(
    *,
    question: str,
    truth: Candidate,
    wrong: Sequence[Candidate],
    rng: random.Random,
    provenance: dict[str, Any],
) -> CompiledItem:
    """Options A, B, C, ... naming candidates drawn on the satellite image; provenance["candidates"]
    lists them in option order (letter, geometry in pixels, where each comes from)."""
    candidates = [truth, *wrong]
    rng.shuffle(candidates)
    options = letters(len(candidates))
    answer = options[candidates.index(truth)]
    listed = [
        {"letter": letter, "source": c.source, "geometry": c.geometry, **c.info}
        for letter, c in zip(options, candidates, strict=True)
    ]
    return CompiledItem(
        question=question,
        options=options,
        answer=answer,
        answer_format=Item.AnswerFormat.MULTIPLE_CHOICE,
        provenance={**provenance, "candidates": listed, "key_position": options.index(answer)},
    )


def open_item(*, question: str, answer: str, answer_format: str, provenance: dict[str, Any]) -> CompiledItem:
    """A number or a timestamp: no options to choose from."""
    return CompiledItem(
        question=question, options=[], answer=answer, answer_format=answer_format, provenance=provenance
    )
