"""How questions name things: marks by their label ("the bus", "the building 2" when two marks share
a label), plurals for counts, times in seconds, and the choice among a template's phrasings."""

from __future__ import annotations

import random
import string
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from annotator.compiling.errors import TemplateError

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


@dataclass(frozen=True)
class Wording:
    """A phrasing as chosen: its text (with {placeholders}), its place among the template's built-in
    phrasings (None for one an admin added) and its row in the phrasing table (None without one)."""

    text: str
    index: int | None = None
    id: int | None = None

    @property
    def provenance(self) -> dict[str, Any]:
        return {"phrasing": self.index, "phrasing_id": self.id, "phrasing_text": self.text}


# (task, polarity) -> the phrasings to choose among. The compile service fills it from the table
# admins curate for the duration of one compile; unset or without entries for a task (no table, as
# in pure tests), templates choose among their built-in phrasings.
Phrasebook = Mapping[tuple[str, str], Sequence[Wording]]
_PHRASEBOOK: ContextVar[Phrasebook | None] = ContextVar("skymark_phrasebook", default=None)


@contextmanager
def using_phrasebook(book: Phrasebook | None) -> Iterator[None]:
    token = _PHRASEBOOK.set(book)
    try:
        yield
    finally:
        _PHRASEBOOK.reset(token)


def _parts(text: str) -> list[tuple[str, str | None]]:
    """(literal text, placeholder name or None) pairs. A placeholder is a bare name: format specs,
    conversions, attributes and indexes are refused (ValueError), since "{region:>20000000}" in an
    admin's phrasing would make a 20 MB question and "{region.__class__}" reads internals."""
    parts: list[tuple[str, str | None]] = []
    for literal, name, spec, conversion in string.Formatter().parse(text):
        if name is not None and (spec or conversion or not name.isidentifier()):
            shown = name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
            raise ValueError(f"{{{shown}}}: a placeholder is a plain name such as {{region}}")
        parts.append((literal, name))
    return parts


def placeholders(text: str) -> set[str]:
    """The {fields} a phrasing fills in; ValueError for a malformed one ("{region" unclosed, a format spec)."""
    return {name for _, name in _parts(text) if name is not None}


def fill(text: str, fields: Mapping[str, str]) -> str:
    """The phrasing with each {name} replaced by its field; KeyError for a name the task lacks."""
    return "".join(literal + (str(fields[name]) if name is not None else "") for literal, name in _parts(text))


def phrase(
    rng: random.Random, phrasings: Sequence[str], *, task: str = "", polarity: str = "positive", **fields: str
) -> tuple[Wording, str]:
    """One phrasing chosen by the seed, filled in: among the phrasebook's for (task, polarity) when
    it has some, else among the built-in `phrasings`. Returns it (for provenance) and the text."""
    book = _PHRASEBOOK.get()
    choices = list(book.get((task, polarity), ())) if book else []
    if not choices:
        choices = [Wording(text, index) for index, text in enumerate(phrasings)]
    chosen = choices[rng.randrange(len(choices))]
    try:
        text = fill(chosen.text, fields)
    except (KeyError, ValueError) as exc:
        raise TemplateError(
            "task", f"phrasing #{chosen.id} does not fit this task ({exc!r}); an admin must correct or disable it"
        ) from exc
    return chosen, text[:1].upper() + text[1:]


def letters(n: int) -> list[str]:
    return [chr(ord("A") + i) for i in range(n)]
