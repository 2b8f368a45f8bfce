"""What an item read from its marks, so that a change to a mark stales only the items it feeds.

Every item reads its marks' geometry, label, times and vertex times (names, shapes, segments and
keys are made from them); of the facts it reads only some: a Target Visibility item reads
`visible`, a Relative Distance item `t1_s` and `t2_s`. Setting a fact for one task must not stale
the drafts of other tasks on the same mark (it did: 8 of 12 drafts went stale while an annotator
filled in later tasks). Compiling records, per mark, the fact keys the template declared for the
mark's role (Need.facts) together with every key it actually looked up while compiling (a fact
read only in some case, a relation to another mark), and "*" when it read the facts as a whole.
Items compiled before this was recorded have no "reads": any change stales them, as before."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from annotator.models import Item, Mark

# The mark fields every item reads (everything a mark has but its facts).
MARK_FIELDS = ("kind", "geometry", "label", "time_start", "time_end", "vertex_times")
ALL_FACTS = "*"


class _ReadFacts(dict):  # type: ignore[type-arg]
    """A mark's facts that note which keys were looked up (whole-dict reads note "*")."""

    def __init__(self, facts: dict[str, Any], seen: set[str]):
        super().__init__(facts)
        self.seen = seen

    def __getitem__(self, key: str) -> Any:
        self.seen.add(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.seen.add(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self.seen.add(str(key))
        return super().__contains__(key)

    def _whole(self) -> None:
        self.seen.add(ALL_FACTS)

    def __iter__(self) -> Iterator[str]:
        self._whole()
        return super().__iter__()

    def keys(self) -> Any:
        self._whole()
        return super().keys()

    def items(self) -> Any:
        self._whole()
        return super().items()

    def values(self) -> Any:
        self._whole()
        return super().values()

    def copy(self) -> dict[str, Any]:
        self._whole()
        return dict(super().items())


@contextmanager
def reads_recorded(marks: list[Mark]) -> Iterator[dict[int, set[str]]]:
    """While the block runs, each mark's facts note the keys looked up: mark id -> keys."""
    seen: dict[int, set[str]] = {m.id: set() for m in marks}
    originals = [(m, m.facts) for m in marks]
    for mark in marks:
        mark.facts = _ReadFacts(mark.facts or {}, seen[mark.id])
    try:
        yield seen
    finally:
        for mark, facts in originals:
            mark.facts = facts


def reads_provenance(seen: dict[int, set[str]], declared: Iterable[tuple[int, str]]) -> dict[str, list[str]]:
    """provenance["reads"]: mark id (a string, as JSON keys are) -> the sorted fact keys read."""
    keys = {mark_id: set(found) for mark_id, found in seen.items()}
    for mark_id, key in declared:
        keys.setdefault(mark_id, set()).add(key)
    return {str(mark_id): sorted(found) for mark_id, found in keys.items()}


def mark_changes(*, before: Mark, after: dict[str, Any]) -> set[str]:
    """What an edit changes: field names, and "facts.<key>" for each fact set, changed or cleared."""
    changed = {f for f in MARK_FIELDS if f in after and after[f] != getattr(before, f)}
    if "facts" in after:
        old, new = before.facts or {}, after["facts"] or {}
        changed |= {f"facts.{k}" for k in set(old) | set(new) if old.get(k) != new.get(k)}
    return changed


def _fact_keys(item: Item, mark_id: int) -> set[str] | None:
    """The facts the item read on this mark; None when unknown (compiled before reads were kept)."""
    reads = item.provenance.get("reads")
    if not isinstance(reads, dict) or str(mark_id) not in reads:
        return None
    return set(reads[str(mark_id)])


def item_reads_changed(*, item: Item, mark_id: int, changes: set[str] | None) -> bool:
    """Whether the changes (None: unknown, anything) touch what the item read of the mark."""
    if changes is None or any(not c.startswith("facts.") for c in changes):
        return True
    keys = _fact_keys(item, mark_id)
    if keys is None or ALL_FACTS in keys:
        return True
    return any(c.removeprefix("facts.") in keys for c in changes)


def item_inputs_current(*, item: Item, marks: list[Mark]) -> bool:
    """True when the item's marks are the ones it was compiled from and what it read of them is
    as it was then (for items without recorded reads: every mark at the version recorded)."""
    snapshots = {m["id"]: m for m in item.provenance.get("marks", [])}
    if set(snapshots) != {m.id for m in marks}:
        return False
    for mark in marks:
        snap = snapshots[mark.id]
        keys = _fact_keys(item, mark.id)
        if keys is None:
            if snap.get("version") != mark.version:
                return False
            continue
        if any(_plain(snap.get(f)) != _plain(getattr(mark, f)) for f in MARK_FIELDS if f in snap):
            return False
        facts, old = mark.facts or {}, snap.get("facts") or {}
        wanted = set(old) | set(facts) if ALL_FACTS in keys else keys
        if any(_plain(old.get(k)) != _plain(facts.get(k)) for k in wanted):
            return False
    return True


def _plain(value: Any) -> Any:
    """A value as JSON gives it back (tuples are lists, ints and floats compare as numbers)."""
    return json.loads(json.dumps(value))


def item_fingerprint(item: Item) -> str:
    """What a revision says and what it was built from: the question, options and key, and each
    mark's content (shape, label, times and the facts the item read; not ids or versions, so a
    copy made on write with the same content is the same). Two revisions with the same
    fingerprint are the same item for a reviewer."""
    reads = item.provenance.get("reads") or {}
    marks = []
    for snap in item.provenance.get("marks", []):
        keys = reads.get(str(snap.get("id")))
        facts = snap.get("facts") or {}
        if keys is not None and ALL_FACTS not in keys:
            facts = {k: facts.get(k) for k in sorted(keys)}
        marks.append({**{f: snap.get(f) for f in MARK_FIELDS}, "facts": facts})
    body = {"question": item.question, "options": item.options, "answer": item.answer, "marks": marks}
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()
