"""The phrasing table admins curate: the templates' built-in phrasings (seeded by a migration) and
their own. Compiling asks among the enabled ones; a task with none enabled, or no table rows at all,
falls back to its template's built-in phrasings, so compiling never stops for want of wording."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from django.core.exceptions import ValidationError

from annotator import hotpath
from annotator.compiling.qa import get_template, registered_tasks
from annotator.compiling.qa.wording import Phrasebook, Wording, placeholders
from annotator.models import Phrasing

P = Phrasing.Polarity


def builtin_phrasings() -> Iterator[tuple[str, str, int, str]]:
    """(task, polarity, index, text) of every template's own phrasings."""
    for task in registered_tasks():
        template: Any = get_template(task)
        for polarity, texts in (
            (P.POSITIVE, template.phrasings),
            (P.NEGATIVE, getattr(template, "negative_phrasings", ())),
        ):
            for index, text in enumerate(texts):
                yield task, str(polarity), index, text


def phrasebook_load(*, task: str) -> Phrasebook:
    """The enabled phrasings of a task by polarity, built-in ones in template order, then the added ones."""
    book: dict[tuple[str, str], list[Wording]] = defaultdict(list)
    for polarity, text, builtin_index, pk in hotpath.phrasings_of_task(task=task):  # read by hand: every compile asks
        book[(task, polarity)].append(Wording(text, builtin_index, pk))
    return book


def phrasing_check(*, task: str, polarity: str, text: str) -> None:
    """A phrasing must name everything its task's questions name, with the same placeholders as
    the built-in phrasings (so "{region}" is never left out or misspelt). Raises ValidationError."""
    template: Any = get_template(task)
    if polarity == P.NEGATIVE and not hasattr(template, "negative_phrasings"):
        raise ValidationError({"polarity": "this task is not a yes/no task; its phrasings are all 'positive'"})
    builtins = template.negative_phrasings if polarity == P.NEGATIVE else template.phrasings
    wanted = set().union(*(placeholders(t) for t in builtins))
    try:
        used = placeholders(text)
    except ValueError as exc:
        raise ValidationError({"text": f"the text has a malformed placeholder ({exc})"}) from exc
    if used != wanted:
        names = ", ".join("{" + n + "}" for n in sorted(wanted))
        raise ValidationError({"text": f"use exactly these placeholders, each at least once: {names}"})
