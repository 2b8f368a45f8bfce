"""Per task: the figures, the flags, and the function other tools call (`audit`)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .blind import Blind, blind_baseline, blind_reason
from .figures import (
    ALPHA,
    Bias,
    Prior,
    Share,
    Wording,
    fact_prior,
    key_texts,
    longest_key,
    position_bias,
    wording_key,
)
from .rows import Row

LETTERS = "ABCDEFGH"


@dataclass
class TaskAudit:
    task: str
    items: int
    n_options: int | None
    positions: Bias | None
    longest: Share | None
    texts: list[Share]  # option texts as keys, most suspicious first
    phrasings: list[tuple[str, int]]
    duplicate_groups: int
    duplicate_items: int
    blind: Blind | None
    blind_missing: str | None  # why there is no blind baseline
    # Yes/no tasks: how often the fact holds, and the keys by the wording's polarity.
    prior: Prior | None = None
    wording: Wording | None = None
    # The options when every item offers the same ones in the same order (yes/no; a set never
    # shuffled): then a text is a position, tested once, as a position named by its text.
    fixed_options: list[str] | None = None
    flags: list[str] = field(default_factory=list)


def near_duplicates(rows: Sequence[Row]) -> tuple[int, int]:
    """(groups, items in them) of items that ask the same thing: one task, the same marks in the
    same roles (Row.same_item_key)."""
    groups = Counter(r.same_item_key for r in rows)
    dups = [n for n in groups.values() if n > 1]
    return len(dups), sum(dups)


def audit_task(task: str, rows: Sequence[Row]) -> TaskAudit:
    choice = [r for r in rows if r.options and r.answer in r.options]
    sizes = {len(r.options) for r in choice}
    n_options = sizes.pop() if len(sizes) == 1 else None
    bias = position_bias([list(r.options).index(r.answer) for r in choice], n_options) if choice and n_options else None
    groups, dup_items = near_duplicates(rows)
    fixed = (
        list(choice[0].options) if choice and all(list(r.options) == list(choice[0].options) for r in choice) else None
    )
    report = TaskAudit(
        task=task,
        items=len(rows),
        n_options=n_options,
        positions=bias,
        longest=longest_key(choice),
        texts=[] if fixed else key_texts(choice),
        phrasings=Counter(r.phrasing for r in rows if r.phrasing).most_common(),
        duplicate_groups=groups,
        duplicate_items=dup_items,
        blind=blind_baseline(choice),
        blind_missing=blind_reason(choice) if choice else "no options",
        prior=fact_prior(rows),
        wording=wording_key(rows),
        fixed_options=fixed,
    )
    report.flags = flags(report)
    return report


def flags(report: TaskAudit) -> list[str]:
    """One sentence per figure beyond chance at ALPHA, saying what a model could exploit."""
    out = []
    blind, bias, longest = report.blind, report.positions, report.longest
    if blind is not None and blind.p_value < ALPHA:
        out.append(
            f"a text-only model gets {blind.correct} of {blind.n_test} right ({blind.accuracy:.0%}, chance "
            f"{blind.chance:.0%}, p = {blind.p_value:.3g}): the wording gives the key away"
        )
    if bias is not None and bias.p_value < ALPHA:
        fixed = report.fixed_options
        letter = LETTERS[bias.mode_position]
        named = f" ('{fixed[bias.mode_position]}')" if fixed and fixed[bias.mode_position] != letter else ""
        out.append(f"the key is at {letter}{named} in {bias.p_mode:.0%} of {bias.n} items (p = {bias.p_value:.3g})")
    if longest is not None and longest.p_value < ALPHA:
        out.append(
            f"the key is the longest option in {longest.hits} of {longest.n} items (chance {longest.chance:.0%}, "
            f"p = {longest.p_value:.3g})"
        )
    for text in report.texts:
        if text.p_value < ALPHA:
            out.append(
                f"'{text.what}' is the key in {text.hits} of the {text.n} items offering it (chance "
                f"{text.chance:.0%}, p = {text.p_value:.3g})"
            )
    prior, wording = report.prior, report.wording
    if prior is not None and prior.p_value < ALPHA:
        held = "holds" if prior.holds * 2 >= prior.n else "does not hold"
        majority = max(prior.holds, prior.n - prior.holds)
        out.append(
            f"the fact {held} in {majority} of {prior.n} items (p = {prior.p_value:.3g}): knowing that prior "
            f"scores {majority / prior.n:.0%} without looking; add marks where it goes the other way"
        )
    if wording is not None and wording.p_value < ALPHA:
        out.append(f"{wording.describe()} (Fisher p = {wording.p_value:.3g}): the wording tells the key")
    if report.duplicate_groups:
        out.append(
            f"{report.duplicate_items} items in {report.duplicate_groups} groups ask the same thing (task and marks "
            "in the same roles)"
        )
    return out


def audit(rows: Sequence[Row]) -> list[TaskAudit]:
    """Per-task audit figures over a list of item records (Rows: rows_from_records turns a release's
    records into them). One report per task present, in the order tasks first appear; pure."""
    by_task: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        by_task[r.task].append(r)
    return [audit_task(task, task_rows) for task, task_rows in by_task.items()]


def as_dict(report: TaskAudit) -> dict[str, Any]:
    return asdict(report)
