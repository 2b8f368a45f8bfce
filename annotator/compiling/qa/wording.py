"""How questions name things: marks by their label ("the bus", "the building 2" when two marks share
a label), plurals for counts, times in seconds, and the choice among a template's phrasings."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

# Labels that read badly as a noun in a question.
NOUNS = {"other": "object"}
PLURALS = {"person": "people", "object": "objects"}


def noun(label: str) -> str:
    label = " ".join((label or "").split()).lower()
    return NOUNS.get(label, label or "object")


def names_for(marks: Sequence[Any]) -> dict[int, str]:
    """Python id of each mark -> its name in questions: its label, numbered in the given order
    when several marks of the item share a label, so each name points at one mark."""
    counts = Counter(noun(m.label) for m in marks)
    seen: Counter[str] = Counter()
    names = {}
    for m in marks:
        base = noun(m.label)
        seen[base] += 1
        names[id(m)] = f"{base} {seen[base]}" if counts[base] > 1 else base
    return names


def plural(word: str) -> str:
    if word in PLURALS:
        return PLURALS[word]
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def seconds(t: float) -> str:
    """A video time as questions state it: one decimal, in seconds."""
    return f"{t:.1f} s"


def phrase(rng: random.Random, phrasings: Sequence[str], **fields: str) -> tuple[int, str]:
    """One phrasing chosen by the seed, filled in; returns its index (kept in provenance) and text."""
    index = rng.randrange(len(phrasings))
    text = phrasings[index].format(**fields)
    return index, text[:1].upper() + text[1:]


def letters(n: int) -> list[str]:
    return [chr(ord("A") + i) for i in range(n)]
