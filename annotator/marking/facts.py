"""The facts an annotator can set on a mark: what geometry cannot know (seen in the video? what
happens there? what does the target do next?) and the times a question is about. One catalog:
mark writes are checked against it (a typo or a wrong type is a 400 on that fact, not an item
that fails to compile later), the QA templates read its kinds, and the workspace builds its fact
fields from it (FactSpec.describe: the Items panel asks for exactly the facts a task needs, typed)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError


class Kind:
    YES_NO = "yes_no"
    TIME = "time"  # seconds of video time
    COUNT = "count"  # a whole number, 0 or more
    TEXT = "text"
    CHOICE = "choice"
    # A list of {"other": <mark id>, "relation": one of the choices}, at most one per other mark: a
    # region can relate to several others (it hides one building and is hidden by a tree).
    RELATION = "relation"


@dataclass(frozen=True)
class FactSpec:
    key: str
    kind: str
    label: str  # a field's label in the workspace
    choices: tuple[tuple[str, str], ...] = ()  # (value, how a person reads it)
    max_length: int = 200
    suggestions: tuple[str, ...] = ()  # for text facts: common values offered in the field
    # Text facts naming a class of object (what to count): the field offers the project's labels.
    suggest_labels: bool = False

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(value for value, _ in self.choices)

    def describe(self) -> dict[str, Any]:
        """The fact as a field of the workspace reads it (kind, label, choices, suggestions)."""
        return {
            "key": self.key,
            "kind": self.kind,
            "label": self.label,
            "choices": [{"value": v, "label": text} for v, text in self.choices],
            "suggestions": list(self.suggestions),
            "suggest_labels": self.suggest_labels,
            "max_length": self.max_length,
        }


INTERACTION_CLASSES = (("enters", "enters it"), ("passes_by", "passes close by"), ("stays_away", "stays away"))
OCCLUSION_RELATIONS = (
    ("hides", "hides part of"),
    ("hidden_by", "is partly hidden by"),
    ("mutual", "each hides part of the other"),
    ("none", "neither hides the other"),
)
# The largest count a fact may state: a typo guard (an extra zero), far above what one region holds.
MAX_COUNT = 10_000

FACTS: dict[str, FactSpec] = {
    spec.key: spec
    for spec in (
        FactSpec("visible", Kind.YES_NO, "Seen in the video?"),
        FactSpec("first_seen_s", Kind.TIME, "First seen at (s)"),
        FactSpec("count", Kind.COUNT, "How many in it"),
        FactSpec("count_class", Kind.TEXT, "Class to count", max_length=64, suggest_labels=True),
        FactSpec("event", Kind.TEXT, "What happens here"),
        FactSpec("interaction", Kind.CHOICE, "With the region, the target", choices=INTERACTION_CLASSES),
        FactSpec(
            "future_action",
            Kind.TEXT,
            "What it does next",
            suggestions=("straight", "turns left at the junction", "turns right at the junction", "stops"),
        ),
        FactSpec("reaches", Kind.YES_NO, "Reaches the region doing that?"),
        FactSpec("at_s", Kind.TIME, "Ask about the time (s)"),
        FactSpec("t1_s", Kind.TIME, "Earlier time (s)"),
        FactSpec("t2_s", Kind.TIME, "Later time (s)"),
        FactSpec("occlusion", Kind.RELATION, "Occlusion", choices=OCCLUSION_RELATIONS),
        FactSpec("note", Kind.TEXT, "Note", max_length=500),
    )
}


def _problem(spec: FactSpec, value: Any, duration: float | None) -> str | None:
    """Why `value` cannot be this fact, in words a person can act on; None when it can."""
    if spec.kind == Kind.YES_NO:
        return None if isinstance(value, bool) else "yes or no (true or false)"
    if spec.kind == Kind.COUNT:
        ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT
        return None if ok else f"a whole number from 0 to {MAX_COUNT}"
    if spec.kind == Kind.TIME:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            return "a video time in seconds, 0 or more"
        if duration is not None and value > duration + 1e-6:
            return f"{value:.2f} s is past the end of the video ({duration:.2f} s)"
        return None
    if spec.kind == Kind.TEXT:
        if not isinstance(value, str) or not value.strip():
            return "some text (leave the fact out instead of setting it empty)"
        return None if len(value) <= spec.max_length else f"at most {spec.max_length} characters"
    if spec.kind == Kind.CHOICE:
        return None if value in spec.values else "one of " + ", ".join(spec.values)
    if spec.kind == Kind.RELATION:
        return _relations_problem(spec, value)
    raise AssertionError(f"unknown fact kind {spec.kind}")


def _relations_problem(spec: FactSpec, value: Any) -> str | None:
    shape = '[{"other": <the other mark\'s id>, "relation": ' + " | ".join(spec.values) + "}, ...]"
    if not isinstance(value, list) or not value:
        return "a list of relations, one per other mark: " + shape
    seen: set[int] = set()
    for entry in value:
        ok = (
            isinstance(entry, dict)
            and set(entry) == {"other", "relation"}
            and isinstance(entry["other"], int)
            and not isinstance(entry["other"], bool)
            and entry["relation"] in spec.values
        )
        if not ok:
            return "a list of relations, one per other mark: " + shape
        if entry["other"] in seen:
            return f"two relations to mark {entry['other']}; state one relation per other mark"
        seen.add(entry["other"])
    return None


def facts_clean(facts: Any, *, duration: float | None, mark_id: int | None = None) -> dict[str, Any]:
    """The facts as stored: known keys with values of their kind (text trimmed). Raises
    ValidationError with one message per bad fact, keyed "facts.<key>" so the page puts it next
    to that fact's field. `duration` (seconds, None when unknown) bounds the time facts."""
    if not isinstance(facts, dict):
        raise ValidationError({"facts": "facts must be an object of fact name to value"})
    errors: dict[str, str] = {}
    clean: dict[str, Any] = {}
    for key, value in facts.items():
        spec = FACTS.get(key)
        if spec is None:
            errors[f"facts.{key}"] = f"unknown fact '{key}'; the facts are: " + ", ".join(FACTS)
            continue
        problem = _problem(spec, value, duration)
        if problem is None and spec.kind == Kind.RELATION and any(e["other"] == mark_id for e in value):
            problem = "a relation to another mark, not to this one"
        if problem is not None:
            errors[f"facts.{key}"] = f"{spec.label.rstrip('?')}: {problem}"
            continue
        clean[key] = value.strip() if isinstance(value, str) else value
    if errors:
        raise ValidationError(errors)
    return clean
