"""What every QA template shares: the compiled item, the declared needs (marks and facts, so a page
can say what is missing before compiling), the registry, seeds and provenance snapshots."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import Any, ClassVar

from annotator.compiling.errors import TemplateError
from annotator.models import Item, Mark

from .roles import Fact, Need, Roles, assign_roles
from .wording import Wording, phrase

__all__ = ["CompiledItem", "Fact", "Need", "Roles", "Template", "TemplateError"]


def mixed_images_message(marks: list[Mark]) -> str:
    """Which marks lie on which image, for the refusal of an item whose marks are on several: each
    image has its own pixels, so their shapes cannot be compared or drawn together."""
    by_image: dict[int, list[Mark]] = {}
    for mark in marks:
        by_image.setdefault(mark.satellite_image_id, []).append(mark)
    parts = [
        ", ".join(f"#{m.id} “{m.label}”" for m in group) + f" on {group[0].satellite_image}"
        for group in by_image.values()
    ]
    return "all marks of an item must be drawn on the same satellite image: " + "; ".join(parts)


@dataclass
class CompiledItem:
    question: str
    options: list[str]
    answer: str
    answer_format: str
    provenance: dict[str, Any] = field(default_factory=dict)
    # Yes/no items: the same item asked the other way round (opposite key), so a set of items can
    # balance its yes and no keys by choosing each question's polarity (annotator.compiling.balance).
    alternate: CompiledItem | None = None


class Template:
    task: ClassVar[str]
    name: ClassVar[str]  # versioned: a change of wording or rules bumps it
    answer_format: ClassVar[str]
    phrasings: ClassVar[tuple[str, ...]]
    # The marks the template takes, in the order they are matched, and the facts it reads on them.
    needs: ClassVar[tuple[Need, ...]]
    # One sentence: how the key is worked out (shown to annotators and in the docs).
    derives: ClassVar[str]
    # The roles whose marks the model view draws, named as the question names them. Marks whose
    # geometry is the answer (a target's track, counted instances, the true option among lettered
    # candidates) are never among them: drawn, they would give the key away.
    shown_roles: ClassVar[tuple[str, ...]] = ()

    @property
    def label(self) -> str:
        return str(dict(Item.Task.choices)[self.task])

    def compile(self, marks: list[Mark], rng: random.Random) -> CompiledItem:
        """The item these marks make; TemplateError names the first thing to add or fix.
        provenance["shown"] lists the marks the model view draws (see shown_roles)."""
        roles = self.roles(marks)
        item = self.build(roles, rng)
        shown = [m.id for role in self.shown_roles for m in roles.all(role)]
        for variant in (item, item.alternate):
            if variant is not None:
                variant.provenance["shown"] = shown
        return item

    def build(self, roles: Roles, rng: random.Random) -> CompiledItem:
        raise NotImplementedError

    def roles(self, marks: list[Mark]) -> Roles:
        if len({m.satellite_image_id for m in marks}) > 1:
            raise TemplateError("marks", mixed_images_message(marks))
        return assign_roles(self.label, self.needs, marks)

    def check(self, marks: list[Mark]) -> list[TemplateError]:
        """Everything missing before these marks make an item: the wrong marks, or each declared
        fact not set yet, or (when those are in place) what compiling itself refuses. Empty: ready."""
        try:
            roles = self.roles(marks)
        except TemplateError as exc:
            return [exc]
        missing = [
            TemplateError(f"facts.{fact.key}", f"set the fact '{fact.key}' on the {roles.name(mark)}: {fact.what}")
            for need in self.needs
            for mark in roles.all(need.role)
            for fact in need.facts
            if fact.required and mark.facts.get(fact.key) is None
        ]
        if missing:
            return missing
        try:
            self.build(roles, random.Random(0))
        except TemplateError as exc:
            return [exc]
        return []

    def fact_fields(self, marks: list[Mark]) -> list[dict[str, Any]]:
        """The facts these marks need or take for this task, each bound to its mark and named as
        the question names it, for the workspace to ask for in place. Empty when the marks do not
        fit the task's roles (the check says what to pick instead)."""
        try:
            roles = self.roles(marks)
        except TemplateError:
            return []
        return [
            fact_field(mark=mark, name=roles.name(mark), fact=fact)
            for need in self.needs
            for mark in roles.all(need.role)
            for fact in need.facts
        ]

    def phrase(self, rng: random.Random, **fields: str) -> tuple[Wording, str]:
        return phrase(rng, self.phrasings, task=str(self.task), **fields)


def fact_field(*, mark: Mark, name: str, fact: Fact, **extra: Any) -> dict[str, Any]:
    """One fact of one mark as the Items panel asks for it: the catalog's description, bound to the
    mark, with this task's wording of what to enter and the value it holds now."""
    return {
        **fact.spec.describe(),
        "mark": mark.id,
        "name": name,
        "what": fact.what,
        "required": fact.required,
        "value": mark.facts.get(fact.key),
        **extra,
    }


class YesNoTemplate(Template):
    """A yes/no task askable either way round: `phrasings` expect "yes" when the fact holds,
    `negative_phrasings` expect "no". An item asks the positive way (its key is the fact, as the
    annotator set it); the negative question rides along as its `alternate`, and as a summary in
    provenance["alternate"] for stored items, so a set of items can balance its keys."""

    answer_format = Item.AnswerFormat.YES_NO
    negative_phrasings: ClassVar[tuple[str, ...]]

    def yes_no(
        self, rng: random.Random, truth: bool, fields: dict[str, str], provenance: dict[str, Any]
    ) -> CompiledItem:
        variants = []
        for polarity, phrasings, key in (
            ("positive", self.phrasings, truth),
            ("negative", self.negative_phrasings, not truth),
        ):
            wording, question = phrase(rng, phrasings, task=str(self.task), polarity=polarity, **fields)
            variants.append(
                CompiledItem(
                    question=question,
                    options=["yes", "no"],
                    answer="yes" if key else "no",
                    answer_format=self.answer_format,
                    provenance={**provenance, **wording.provenance, "polarity": polarity},
                )
            )
        positive, negative = variants
        for item, other in ((positive, negative), (negative, positive)):
            item.provenance["alternate"] = {
                "question": other.question,
                "answer": other.answer,
                "phrasing": other.provenance["phrasing"],
                "phrasing_id": other.provenance["phrasing_id"],
                "phrasing_text": other.provenance["phrasing_text"],
                "polarity": other.provenance["polarity"],
            }
        positive.alternate = negative
        return positive


_REGISTRY: dict[str, Template] = {}


def register(cls: type[Template]) -> type[Template]:
    _REGISTRY[str(cls.task)] = cls()
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
