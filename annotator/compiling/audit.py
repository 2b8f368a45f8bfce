"""Audit of a set of items, per task: can a model score above chance without looking? Pure
functions over plain rows (no database): key-position bias, how often the key is the longest
option, phrasing usage, near-duplicates, and a blind text-only baseline (bag-of-words logistic
regression on question + options, trained and tested across scenes) that should sit near chance.

A figure is flagged when it is off by more than chance allows: a one-sided binomial z above FLAG_Z
(about p < 0.01) against what a fair set would give."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

FLAG_Z = 2.33
# The baseline is too noisy to judge on fewer test items than this.
MIN_BLIND_ITEMS = 20
MAX_FOLDS = 5
_TOKEN = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Row:
    """One item as the audit reads it."""

    id: int
    task: str
    scene_id: int
    question: str
    options: Sequence[str]
    answer: str
    answer_format: str
    mark_ids: frozenset[int]
    phrasing: str  # the phrasing text used ("" when not recorded)
    # Yes/no items: whether the fact asked about holds, whichever way round the question was put
    # (None for other formats, or when the item records no polarity).
    truth: bool | None = None


@dataclass(frozen=True)
class Bias:
    entropy: float  # normalized: 1 = keys spread evenly over the positions, 0 = always the same one
    p_mode: float  # share of the most common key position
    kl_uniform: float  # KL divergence from uniform, in nats
    z_mode: float  # how far the most common position's count is above a fair share, in SDs


@dataclass(frozen=True)
class Blind:
    accuracy: float
    chance: float
    n_test: int
    z: float
    folds: int


@dataclass
class TaskAudit:
    task: str
    items: int
    n_options: int | None
    positions: Bias | None
    longest_key_share: float | None
    longest_chance: float | None
    phrasings: list[tuple[str, int]]
    duplicate_groups: int
    duplicate_items: int
    blind: Blind | None
    # Yes/no tasks: the share of items whose fact holds. Balancing asks some questions the other way
    # round so the keys are half yes, but it cannot change this prior: far from one half, a model
    # that only knows it ("targets are usually visible") scores that share without looking.
    truth_share: float | None = None
    flags: list[str] = field(default_factory=list)


def position_bias(positions: Sequence[int], n_options: int) -> Bias:
    """Entropy, mode share and KL from uniform of key positions over `n_options` positions."""
    if not positions or n_options < 2:
        raise ValueError("key positions need at least one item and two options")
    counts = np.bincount(np.asarray(positions), minlength=n_options)[:n_options].astype(float)
    p = counts / counts.sum()
    nz = p[p > 0]
    entropy = float(-(nz * np.log(nz)).sum() / math.log(n_options))
    kl = float((nz * np.log(nz * n_options)).sum())
    z_mode = _z(int(counts.max()), len(positions), 1 / n_options)
    return Bias(round(entropy, 4), round(float(p.max()), 4), round(kl, 4), round(z_mode, 2))


def _z(hits: int, n: int, chance: float) -> float:
    """One-sided binomial z of `hits` out of `n` against `chance`."""
    sd = math.sqrt(n * chance * (1 - chance))
    return 0.0 if sd == 0 else (hits - n * chance) / sd


def longest_key(rows: Sequence[Row]) -> tuple[float, float] | None:
    """(share of items whose key is the strictly longest option, the share a fair set would give),
    over the items whose options differ in length; None when none do (letters, yes/no)."""
    judged = [r for r in rows if len({len(o) for o in r.options}) > 1]
    if not judged:
        return None
    hits = sum(1 for r in judged if len(r.answer) > max(len(o) for o in r.options if o != r.answer))
    return round(hits / len(judged), 4), round(sum(1 / len(r.options) for r in judged) / len(judged), 4)


def near_duplicates(rows: Sequence[Row]) -> tuple[int, int]:
    """(groups, items in them) of items of one task built from the same marks."""
    groups = Counter(r.mark_ids for r in rows)
    dups = [n for n in groups.values() if n > 1]
    return len(dups), sum(dups)


# ---- the blind baseline -------------------------------------------------------------------------


def features(row: Row) -> list[str]:
    """Words of the question, and words of each option tagged with its position."""
    words = [f"q:{t}" for t in _TOKEN.findall(row.question.lower())]
    return words + [f"o{i}:{t}" for i, o in enumerate(row.options) for t in _TOKEN.findall(o.lower())]


def _matrix(rows: Sequence[Row], vocab: dict[str, int]) -> np.ndarray:
    x = np.zeros((len(rows), len(vocab) + 1))
    x[:, -1] = 1.0  # bias
    for i, row in enumerate(rows):
        for f in features(row):
            if f in vocab:
                x[i, vocab[f]] = 1.0
    return x


def _fit(
    x: np.ndarray, y: np.ndarray, classes: int, *, steps: int = 300, rate: float = 0.5, l2: float = 0.01
) -> np.ndarray:
    """Multinomial logistic regression by full-batch gradient descent (deterministic)."""
    w = np.zeros((x.shape[1], classes))
    onehot = np.eye(classes)[y]
    for _ in range(steps):
        z = x @ w
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        w -= rate * (x.T @ (p - onehot) / len(x) + l2 * w)
    return w


def blind_baseline(rows: Sequence[Row]) -> Blind | None:
    """Accuracy of predicting the key's position from text alone, each scene's items predicted by a
    model trained on the other scenes (grouped folds). None when it cannot be judged: fewer than two
    scenes, fewer than MIN_BLIND_ITEMS items, or options that vary in number."""
    sizes = {len(r.options) for r in rows}
    scenes = sorted({r.scene_id for r in rows})
    if len(rows) < MIN_BLIND_ITEMS or len(scenes) < 2 or len(sizes) != 1 or min(sizes) < 2:
        return None
    classes = sizes.pop()
    folds = min(MAX_FOLDS, len(scenes))
    fold_of = {s: i % folds for i, s in enumerate(scenes)}
    correct = 0
    for k in range(folds):
        train = [r for r in rows if fold_of[r.scene_id] != k]
        test = [r for r in rows if fold_of[r.scene_id] == k]
        vocab = {f: i for i, f in enumerate(sorted({f for r in train for f in features(r)}))}
        w = _fit(_matrix(train, vocab), np.array([r.options.index(r.answer) for r in train]), classes)
        guesses = (_matrix(test, vocab) @ w).argmax(axis=1)
        correct += int(sum(int(g == r.options.index(r.answer)) for g, r in zip(guesses, test, strict=True)))
    chance = 1 / classes
    z = _z(correct, len(rows), chance)
    return Blind(round(correct / len(rows), 4), round(chance, 4), len(rows), round(z, 2), folds)


# ---- per task -----------------------------------------------------------------------------------


def audit_task(task: str, rows: Sequence[Row]) -> TaskAudit:
    choice = [r for r in rows if r.options and r.answer in r.options]
    sizes = {len(r.options) for r in choice}
    n_options = sizes.pop() if len(sizes) == 1 else None
    bias = position_bias([r.options.index(r.answer) for r in choice], n_options) if choice and n_options else None
    longest = longest_key(choice)
    groups, dup_items = near_duplicates(rows)
    blind = blind_baseline(choice)
    report = TaskAudit(
        task=task,
        items=len(rows),
        n_options=n_options,
        positions=bias,
        longest_key_share=longest[0] if longest else None,
        longest_chance=longest[1] if longest else None,
        phrasings=Counter(r.phrasing for r in rows if r.phrasing).most_common(),
        duplicate_groups=groups,
        duplicate_items=dup_items,
        blind=blind,
        truth_share=_truth_share(rows),
    )
    report.flags = _flags(report, choice, rows)
    return report


def _truth_share(rows: Sequence[Row]) -> float | None:
    truths = [r.truth for r in rows if r.truth is not None]
    return round(sum(truths) / len(truths), 4) if truths else None


def _flags(report: TaskAudit, choice: Sequence[Row], rows: Sequence[Row]) -> list[str]:
    flags = []
    if report.blind is not None and report.blind.z > FLAG_Z:
        flags.append(
            f"a text-only model scores {report.blind.accuracy:.0%} (chance {report.blind.chance:.0%}): the wording "
            "gives the key away"
        )
    if report.positions is not None and report.positions.z_mode > FLAG_Z:
        flags.append(f"the key sits at one position in {report.positions.p_mode:.0%} of items")
    if report.longest_key_share is not None and report.longest_chance is not None:
        judged = [r for r in choice if len({len(o) for o in r.options}) > 1]
        hits = round(report.longest_key_share * len(judged))
        if _z(hits, len(judged), report.longest_chance) > FLAG_Z:
            flags.append(f"the key is the longest option in {report.longest_key_share:.0%} of items")
    if report.truth_share is not None:
        stated = sum(1 for r in rows if r.truth is not None)
        majority = max(report.truth_share, 1 - report.truth_share)
        if _z(round(majority * stated), stated, 0.5) > FLAG_Z:
            held = "holds" if report.truth_share >= 0.5 else "does not hold"
            flags.append(
                f"the fact {held} in {majority:.0%} of items: knowing that prior scores {majority:.0%} without "
                "looking; add marks where it goes the other way"
            )
    if report.duplicate_groups:
        flags.append(f"{report.duplicate_items} items in {report.duplicate_groups} groups share task and marks")
    return flags


def audit(rows: Sequence[Row]) -> list[TaskAudit]:
    """One report per task present, in the order of first appearance of the task in `rows`."""
    by_task: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        by_task[r.task].append(r)
    return [audit_task(task, task_rows) for task, task_rows in by_task.items()]


def as_dict(report: TaskAudit) -> dict[str, Any]:
    return asdict(report)


@dataclass(frozen=True)
class Effort:
    task: str
    items: int  # items with time recorded
    median_min: float
    mean_min: float
    total_h: float


def effort_by_task(pairs: Sequence[tuple[str, float]]) -> list[Effort]:
    """Median, mean and total active time per task from (task, seconds) of items with time recorded."""
    by_task: dict[str, list[float]] = defaultdict(list)
    for task, seconds in pairs:
        if seconds > 0:
            by_task[task].append(seconds)
    return [
        Effort(
            task, len(s), round(float(np.median(s)) / 60, 2), round(float(np.mean(s)) / 60, 2), round(sum(s) / 3600, 2)
        )
        for task, s in sorted(by_task.items())
    ]
