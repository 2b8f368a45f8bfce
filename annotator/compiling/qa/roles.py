"""Which mark plays which part in an item (the target, the region, the decoys ...), and the typed
reading of the facts annotators set on marks, each refusal naming the fact to set."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from annotator.compiling.errors import TemplateError
from annotator.marking.facts import FACTS, FactSpec
from annotator.models import Mark

from .wording import names_for

# An item is made from a handful of marks; more is a mistake, and it bounds the matching below.
MAX_MARKS = 40
KIND_NOUNS = {"ellipse": "ellipse", "point": "point", "polygon": "polygon", "polyline": "trajectory"}


@dataclass(frozen=True)
class Fact:
    key: str  # the key in Mark.facts
    what: str  # what to enter, for a person ("yes or no: is it seen in the video?")
    required: bool = True  # False: needed only in the case `what` describes

    def __post_init__(self) -> None:
        if self.key not in FACTS:  # a template may only read facts the mark API lets annotators set
            raise ValueError(f"fact {self.key!r} is not in annotator.marking.facts.FACTS")

    @property
    def spec(self) -> FactSpec:
        return FACTS[self.key]


@dataclass(frozen=True)
class Need:
    role: str
    kinds: tuple[str, ...]
    what: str  # for a person, with its count: "a region (polygon)"
    count: tuple[int, int] = (1, 1)  # fewest and most marks in this role
    facts: tuple[Fact, ...] = ()


class Roles:
    """The marks of an item by role, and the names the question calls them by."""

    def __init__(self, by_role: dict[str, list[Mark]], names: dict[int, str]):
        self.by_role = by_role
        self.names = names

    def one(self, role: str) -> Mark:
        return self.by_role[role][0]

    def all(self, role: str) -> list[Mark]:
        return self.by_role.get(role, [])

    def name(self, mark: Mark) -> str:
        return self.names[id(mark)]

    def named(self) -> dict[str, str]:
        """Mark id -> name, for provenance (the model view labels the marks the same way)."""
        return {str(m.id): self.names[id(m)] for marks in self.by_role.values() for m in marks}


def assign_roles(task_label: str, needs: Sequence[Need], marks: list[Mark]) -> Roles:
    """Match marks to needs by kind. Marks are taken in the order given, and when kinds leave a
    choice (an ellipse can be the target or a counted instance) earlier marks fill earlier needs."""
    roles = role_of_each(needs, [m.kind for m in marks])
    if roles is not None:
        by_role: dict[str, list[Mark]] = {need.role: [] for need in needs}
        for mark, role in zip(marks, roles, strict=True):
            by_role[role].append(mark)
        ordered = [m for need in needs for m in by_role[need.role]]
        return Roles(by_role, names_for(ordered))
    wanted = "; ".join(need.what for need in needs)
    raise TemplateError("marks", f"{task_label} needs {wanted}; got {_describe(marks)}")


def role_of_each(needs: Sequence[Need], kinds: Sequence[str]) -> list[str] | None:
    """The role each mark takes, from the marks' kinds in the order given (as assign_roles matches
    them; provenance keeps that order), or None when they fit no way."""
    slots: list[list[int]] = [[] for _ in needs]
    if len(kinds) > MAX_MARKS or not _place(needs, kinds, 0, slots):
        return None
    role = {i: need.role for need, slot in zip(needs, slots, strict=True) for i in slot}
    return [role[i] for i in range(len(kinds))]


def _place(needs: Sequence[Need], kinds: Sequence[str], i: int, slots: list[list[int]]) -> bool:
    if i == len(kinds):
        return all(len(slot) >= need.count[0] for need, slot in zip(needs, slots, strict=True))
    for need, slot in zip(needs, slots, strict=True):
        if kinds[i] in need.kinds and len(slot) < need.count[1]:
            slot.append(i)
            if _place(needs, kinds, i + 1, slots):
                return True
            slot.pop()
    return False


def _describe(marks: list[Mark]) -> str:
    if not marks:
        return "no marks"
    counts = Counter(KIND_NOUNS.get(m.kind, m.kind) for m in marks)
    parts = [
        f"{n} {kind}s" if n > 1 else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"
        for kind, n in sorted(counts.items())
    ]
    return " and ".join(parts) if len(parts) < 3 else ", ".join(parts[:-1]) + " and " + parts[-1]


# ---- facts --------------------------------------------------------------------------------


def _refuse(key: str, name: str, what: str) -> TemplateError:
    return TemplateError(f"facts.{key}", f"set the fact '{key}' on the {name}: {what}")


def fact_bool(mark: Mark, key: str, name: str, what: str) -> bool:
    value = mark.facts.get(key)
    if not isinstance(value, bool):
        raise _refuse(key, name, what)
    return value


def fact_number(mark: Mark, key: str, name: str, what: str, *, minimum: float = 0.0) -> float:
    value = mark.facts.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < minimum:
        raise _refuse(key, name, what)
    return float(value)


def fact_text(mark: Mark, key: str, name: str, what: str) -> str:
    value = mark.facts.get(key)
    if not isinstance(value, str) or not value.strip():
        raise _refuse(key, name, what)
    return " ".join(value.split())


def fact_choice(mark: Mark, key: str, name: str, choices: Sequence[str]) -> str:
    value = mark.facts.get(key)
    if value not in choices:
        raise _refuse(key, name, "one of " + ", ".join(repr(c) for c in choices))
    return str(value)


def optional_number(mark: Mark, key: str, name: str, what: str) -> float | None:
    """A fact that may be left out; set to something else than a number it is refused."""
    return None if mark.facts.get(key) is None else fact_number(mark, key, name, what)


def has_fact(mark: Mark, key: str) -> bool:
    return mark.facts.get(key) is not None


def facts_of(marks: Sequence[Mark], key: str) -> dict[str, Any]:
    """Mark id -> the fact's value, for provenance."""
    return {str(m.id): m.facts.get(key) for m in marks}


def first_seen_s(mark: Mark, name: str) -> float:
    """When a region first shows in the video: the fact 'first_seen_s' if set, else the mark's start
    time. A region marked as never seen has no such time."""
    if mark.facts.get("visible") is False:
        raise TemplateError(
            "facts.visible",
            f"the {name} is marked as never seen in the video, so it has no first-seen time; choose a region "
            "the drone sees, or correct its 'visible' fact",
        )
    value = optional_number(mark, "first_seen_s", name, "the video time in seconds when it first appears")
    return float(mark.time_start) if value is None else value
