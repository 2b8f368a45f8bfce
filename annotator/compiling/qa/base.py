from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import Any, ClassVar

from annotator.models import Item, Mark


class TemplateError(Exception):
    """The marks cannot make this item; the message says what to add or fix."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


@dataclass
class CompiledItem:
    question: str
    options: list[str]
    answer: str
    answer_format: str
    provenance: dict[str, Any] = field(default_factory=dict)


class Template:
    task: ClassVar[str]
    name: ClassVar[str]  # versioned: a change of wording or rules bumps it
    phrasings: ClassVar[tuple[str, ...]]

    def compile(self, marks: list[Mark], rng: random.Random) -> CompiledItem:
        raise NotImplementedError


_REGISTRY: dict[str, Template] = {}


def register(cls: type[Template]) -> type[Template]:
    _REGISTRY[cls.task] = cls()
    return cls


def get_template(task: str) -> Template:
    try:
        return _REGISTRY[task]
    except KeyError:
        label = dict(Item.Task.choices).get(task)
        msg = f"no template for {label or task!r} yet" if label else f"unknown task {task!r}"
        raise TemplateError("task", msg) from None


def registered_tasks() -> list[str]:
    return sorted(_REGISTRY)


def default_seed(marks: list[Mark], task: str) -> int:
    """Same marks (ids and versions) and task give the same seed, so recompiling is stable."""
    key = task + "|" + ",".join(f"{m.id}:{m.version}" for m in sorted(marks, key=lambda m: m.id))
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:6], "big")


def mark_snapshot(mark: Mark) -> dict[str, Any]:
    return {
        "id": mark.id,
        "version": mark.version,
        "kind": mark.kind,
        "label": mark.label,
        "geometry": mark.geometry,
        "time_start": mark.time_start,
        "time_end": mark.time_end,
        "vertex_times": mark.vertex_times,
        "facts": mark.facts,
        "satellite_image": mark.satellite_image_id,
    }
