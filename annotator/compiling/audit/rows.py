"""The audit's view of an item (`Row`), built the same way from a database row or a release record,
and the key that says which items repeat one another: the same task with the same marks in the
same roles."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# (role, ids of the marks in it), roles sorted: ("instances", (3, 4)), ("region", (12,)). Marks the
# current template cannot place (an item compiled under an older template's rules) keep their order
# instead, under the role "in order": the template matched them by order, so another order may
# have given them other roles.
RoleKey = tuple[tuple[str, tuple[int, ...]], ...]


@dataclass(frozen=True)
class Row:
    """One item as the audit reads it."""

    id: int | str
    task: str
    scene_id: int | str
    question: str
    options: Sequence[str]
    answer: str
    answer_format: str
    mark_ids: frozenset[int]
    phrasing: str  # the phrasing text used ("" when not recorded)
    # Yes/no items: whether the fact asked about holds, whichever way round the question was put
    # (None for other formats, or when the item records no polarity).
    truth: bool | None = None
    polarity: str | None = None  # yes/no items: "positive" or "negative" wording
    # Which marks play which part (the target, the region, the decoys); None when the item's
    # provenance does not record its marks in order (then the set of marks stands in).
    roles: RoleKey | None = None

    @property
    def same_item_key(self) -> tuple[str, Any]:
        """Two items with this key ask the same thing: task and marks in the same roles. Zone Counting
        of region A and of region B share instance marks but not the region; Trajectory Matching with
        target and decoy swapped asks about another track."""
        return (self.task, self.roles if self.roles is not None else self.mark_ids)


def truth_of(answer_format: str, answer: str, polarity: str | None) -> bool | None:
    """Whether a yes/no item's fact holds: its key, read the other way round for negative questions."""
    if answer_format != "yes_no" or polarity not in ("positive", "negative"):
        return None
    return (answer == "yes") == (polarity == "positive")


def role_key(task: str, marks: Sequence[Mapping[str, Any]]) -> RoleKey | None:
    """Roles of the marks recorded in provenance (in the order the template matched them), worked
    out again from their kinds by the task's template, as compiling assigned them; None when
    provenance records no marks."""
    if not marks or any("id" not in m or "kind" not in m for m in marks):
        return None
    from annotator.compiling.qa import get_template
    from annotator.compiling.qa.base import TemplateError
    from annotator.compiling.qa.roles import role_of_each

    try:
        roles = role_of_each(get_template(task).needs, [str(m["kind"]) for m in marks])
    except TemplateError:
        roles = None
    if roles is None:
        return (("in order", tuple(int(m["id"]) for m in marks)),)
    grouped: dict[str, list[int]] = {}
    for mark, role in zip(marks, roles, strict=True):
        grouped.setdefault(role, []).append(int(mark["id"]))
    return tuple(sorted((role, tuple(sorted(ids))) for role, ids in grouped.items()))


def row_from_record(record: Mapping[str, Any], mark_ids: Sequence[int] = ()) -> Row:
    """A Row from an item record: a release's record (`scene`, `provenance`) or the audit's database
    read (`scene_id`). Marks come from provenance["marks"] (ids, kinds, in matching order), else
    from `mark_ids`."""
    provenance = record.get("provenance") or {}
    marks = provenance.get("marks") or []
    polarity = provenance.get("polarity")
    fmt, answer = str(record["answer_format"]), str(record["answer"])
    return Row(
        id=record["id"],
        task=str(record["task"]),
        scene_id=record.get("scene_id", record.get("scene", record["id"])),
        question=str(record.get("question") or ""),
        options=[str(o) for o in record.get("options") or []],
        answer=answer,
        answer_format=fmt,
        mark_ids=frozenset(int(m["id"]) for m in marks if "id" in m) or frozenset(mark_ids),
        phrasing=str(provenance.get("phrasing_text") or ""),
        truth=truth_of(fmt, answer, polarity),
        polarity=polarity if fmt == "yes_no" and polarity in ("positive", "negative") else None,
        roles=role_key(str(record["task"]), marks),
    )


def rows_from_records(records: Sequence[Mapping[str, Any]]) -> list[Row]:
    """Rows of a release's item records (review.releasing: id, task, scene, question, options,
    answer, answer_format, provenance)."""
    return [row_from_record(r) for r in records]
