"""The freeze's balance over what is released (the rule itself: annotator.compiling.balance).

Per task, over every released item whatever batch or single compile made it:

- multiple choice: the key's position as even as the count allows (each position's count differs
  by at most one) in the whole release, in its test split and in its tiny split, by reordering
  options in the release's record. An item keeps its compiled order
  when its position has room. Lettered candidates are lettered anew, and the build draws their
  images again with the new letters (drawing.py).
- yes/no: the question is asked the positive or the negative way independently of its fact (the
  same split in both fact classes, so the wording does not predict the key), and, unless the admin
  turns it off, the surplus of the majority fact is held back so the keys are even. What is held
  back is listed by id and reason.

Deterministic: choices follow each item's uid (sha256), never a clock, so the same items give the
same records. Every record says what the release did in provenance["release"]: the order
(position -> compiled position) or the wording chosen. The frozen Item rows are never touched."""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from annotator.compiling.balance import POLARITIES, assign_positions, reorder

HOLD_BACK_REASON = "yes/no balance: surplus of the majority fact ({fact}) in {task}"


def priority(uid: str, purpose: str) -> str:
    """A stable, well-mixed order of items for one purpose (not the order they were made in)."""
    return hashlib.sha256(f"{purpose}|{uid}".encode()).hexdigest()


@dataclass
class Balanced:
    records: list[dict[str, Any]]
    held_back: list[dict[str, Any]] = field(default_factory=list)  # {"id", "task", "reason"}
    reworded: set[str] = field(default_factory=set)  # yes/no ids asked the other way than compiled


def _own(record: dict[str, Any]) -> dict[str, Any]:
    """A copy of the record and its provenance to set fields on. Nested values stay shared: nothing
    here edits them in place (a deep copy of every record cost seconds per 10,000 items)."""
    return {**record, "provenance": dict(record["provenance"])}


def reorder_record(record: dict[str, Any], order: list[int]) -> dict[str, Any]:
    """The record with its options in `order` (new position -> position in `record`): options,
    answer, lettered candidates and key position follow; media are the caller's. `record` is
    untouched (what changes is new; the rest is shared, as a release never edits it)."""
    out = _own(record)
    prov = out["provenance"]
    out["options"], out["answer"], candidates = reorder(
        record["options"], record["answer"], prov.get("candidates"), order
    )
    if candidates is not None:
        prov["candidates"] = candidates
    prov["key_position"] = out["options"].index(out["answer"])
    return out


def _stratum(record: dict[str, Any]) -> int:
    """Tiny first, then the rest of test, then train (records not placed yet are one stratum)."""
    return 0 if record.get("tiny") else 1 if record.get("split") == "test" else 2


def _balance_choices(records: list[dict[str, Any]]) -> None:
    """Per task, stratum by stratum: each stratum's positions even, and the one-more positions of
    each chosen where the strata so far have fewest keys, so tiny, test and the whole release are
    each even (counts differ by at most one)."""
    groups: dict[tuple[str, int], list[int]] = defaultdict(list)
    for i, r in enumerate(records):
        if r["answer_format"] == "multiple_choice" and r["answer"] in r["options"]:
            groups[(r["task"], len(r["options"]))].append(i)
    for (task, n), members in sorted(groups.items()):
        so_far = [0] * n
        for stratum in sorted({_stratum(records[i]) for i in members}):
            part = [i for i in members if _stratum(records[i]) == stratum]
            current = [records[i]["options"].index(records[i]["answer"]) for i in part]
            held = Counter(current)
            extras = sorted(range(n), key=lambda p: (so_far[p], -held[p], p))
            prio = [priority(records[i]["id"], f"position|{task}") for i in part]
            wanted = assign_positions(current, n, prio, extras=extras)
            for i, was, now in zip(part, current, wanted, strict=True):
                so_far[now] += 1
                order = list(range(n))
                order[was], order[now] = order[now], order[was]
                record = reorder_record(records[i], order) if now != was else records[i]
                record["provenance"]["release"] = {"order": order, "key_position": now, "compiled_key_position": was}
                records[i] = record


def fact_of(record: dict[str, Any]) -> bool:
    """What a yes/no item states, whichever way round it is asked (its key read through its wording)."""
    return (record["answer"] == "yes") == (record["provenance"].get("polarity", "positive") == "positive")


def _asked(record: dict[str, Any], polarity: str) -> dict[str, Any]:
    """The record asked the `polarity` way, from the alternate its item carries."""
    prov = record["provenance"]
    if prov.get("polarity", "positive") == polarity or not prov.get("alternate"):
        return record
    out = _own(record)
    other = out["provenance"].pop("alternate")
    keys = ("phrasing", "phrasing_id", "phrasing_text", "polarity")
    out["provenance"]["alternate"] = {"question": record["question"], "answer": record["answer"]}
    out["provenance"]["alternate"].update({k: prov[k] for k in keys if k in prov})
    out["question"], out["answer"] = other["question"], other["answer"]
    out["provenance"].update({k: other[k] for k in keys if k in other})
    return out


def _hold_back(task: str, members: list[int], records: list[dict[str, Any]], out: Balanced) -> list[int]:
    by_fact = {f: [i for i in members if fact_of(records[i]) is f] for f in (True, False)}
    surplus = len(by_fact[True]) - len(by_fact[False])
    if surplus == 0:
        return members
    fact = surplus > 0
    # The items of the majority fact that come last in a stable order stay out.
    ranked = sorted(by_fact[fact], key=lambda i: priority(records[i]["id"], f"hold|{task}"))
    dropped = set(ranked[len(ranked) - abs(surplus) :])
    reason = HOLD_BACK_REASON.format(fact="yes" if fact else "no", task=task)
    out.held_back += [{"id": records[i]["id"], "task": task, "reason": reason} for i in sorted(dropped)]
    return [i for i in members if i not in dropped]


def _word(task: str, members: list[int], records: list[dict[str, Any]], out: Balanced) -> None:
    """Within each fact class, ceil(half) asked the positive way and the rest the negative way:
    the same split in both classes makes the wording independent of the key."""
    for fact in (True, False):
        group = [i for i in members if fact_of(records[i]) is fact]
        current = [POLARITIES.index(records[i]["provenance"].get("polarity", "positive")) for i in group]
        flexible = [bool(records[i]["provenance"].get("alternate")) for i in group]
        # Items that cannot be asked the other way keep their wording (first, so they take their room).
        prio = [
            ("0" if not f else "1") + priority(records[i]["id"], f"wording|{task}")
            for i, f in zip(group, flexible, strict=True)
        ]
        wanted = assign_positions(current, 2, prio, extras=[0, 1])
        for i, was, now, can in zip(group, current, wanted, flexible, strict=True):
            polarity = POLARITIES[now if can else was]
            record = _asked(records[i], polarity)
            if polarity != POLARITIES[was]:
                out.reworded.add(record["id"])
            record["provenance"]["release"] = {"polarity": polarity, "compiled_polarity": POLARITIES[was]}
            records[i] = record


def balance_release(
    records: list[dict[str, Any]],
    *,
    balance_yes_no: bool = True,
    place: Callable[[list[dict[str, Any]]], None] | None = None,
) -> Balanced:
    """The records as released: yes/no wording chosen per task independently of the facts and (with
    `balance_yes_no`) the majority fact's surplus held back; then `place` (which sets each kept
    record's "split" and "tiny", as the freeze does) and multiple-choice keys spread per task, in
    tiny, test and overall alike. The input records are untouched."""
    work = [_own(r) for r in records]
    out = Balanced(records=[])
    tasks: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(work):
        if r["answer_format"] == "yes_no" and r["answer"] in ("yes", "no"):
            tasks[r["task"]].append(i)
    kept = set(range(len(work)))
    for task, members in sorted(tasks.items()):
        released = _hold_back(task, members, work, out) if balance_yes_no else members
        kept -= set(members) - set(released)
        _word(task, released, work, out)
    out.records = [r for i, r in enumerate(work) if i in kept]
    if place is not None:
        place(out.records)
    _balance_choices(out.records)
    return out


def flip_yes_no(answer: Any) -> Any:
    """A blind answer to the question asked the other way round ("yes" <-> "no"; else as it was)."""
    text = str(answer).strip().lower()
    return {"yes": "no", "no": "yes"}.get(text, answer)
