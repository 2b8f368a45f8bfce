"""Answer-key balance over a set of items of one task: a model that always picks the same position,
or always says yes, should score chance and no more. Pure functions: items and a seed in, new items
out, the same every time.

This module owns the rule; the release freeze (review.releasing.ordering) applies it to what is
released, which is authoritative: per task the key's position is spread as evenly as the count
allows over every released item, whatever batch or single compile made it. Compiling a batch
balances its own keys too, as a courtesy to reviewers, with the same functions:

- `reorder` moves options into a given order. When the options are letters naming candidates
  drawn on the image (provenance["candidates"]), the candidates move and are lettered anew, so the
  letters stay A, B, C, ... in order and the drawn images must be drawn again with them.
- `assign_positions` gives each item a key position, keeping the one it has while that position's
  share is not full, so a set that is already balanced is left alone.
- Yes/no wording (positive or negative) is chosen independently of the fact: a key balanced by
  asking the question the other way round would let the wording predict the key."""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from typing import Any

from annotator.models import Item

from .qa.base import CompiledItem

F = Item.AnswerFormat


def balanced_positions(count: int, n_options: int, seed: int) -> list[int]:
    """`count` key positions in [0, n_options): each used count // n or count // n + 1 times (the
    positions that get one more are drawn by the seed), in a seeded order."""
    if n_options < 1:
        raise ValueError("an item needs at least one option")
    rng = random.Random(seed)
    positions = [p for p in range(n_options) for _ in range(count // n_options)]
    positions += rng.sample(range(n_options), count % n_options)
    rng.shuffle(positions)
    return positions


def swap_order(n: int, current: int, position: int) -> list[int]:
    """The order (new position -> old position) that swaps the option at `current` with the one at
    `position` and leaves the others where they are."""
    order = list(range(n))
    order[current], order[position] = order[position], order[current]
    return order


def rotation_order(n: int, k: int) -> list[int]:
    """The order of rotation `k`: options[k:] + options[:k]."""
    return [(i + k) % n for i in range(n)]


def reorder(
    options: Sequence[Any], answer: Any, candidates: Sequence[dict[str, Any]] | None, order: Sequence[int]
) -> tuple[list[Any], Any, list[dict[str, Any]] | None]:
    """Options, answer and candidates with the option at old position `order[i]` shown at position
    i. Lettered candidates: the letters stay in order and the candidates move under them (each
    lettered anew), so the answer becomes the letter its candidate now has. Inputs are untouched."""
    if sorted(order) != list(range(len(options))):
        raise ValueError(f"{list(order)} is not an order of {len(options)} options")
    if candidates is None:
        return [options[o] for o in order], answer, None
    if len(candidates) != len(options):
        raise ValueError("lettered candidates must match the options one to one")
    moved = [{**copy.deepcopy(candidates[o]), "letter": options[i]} for i, o in enumerate(order)]
    return list(options), options[order.index(list(options).index(answer))], moved


def assign_positions(
    current: Sequence[int], n: int, priority: Sequence[str], extras: Sequence[int] | None = None
) -> list[int]:
    """A key position in [0, n) for each item, each position used count // n or count // n + 1
    times. An item keeps its `current` position while that position has room (items in `priority`
    order, lowest first); the rest fill the remaining room in the same order. The positions that
    get one more are those `extras` lists first, by default the ones most items hold already (so
    the fewest move). Deterministic: the same inputs give the same positions."""
    count = len(current)
    if n < 1:
        raise ValueError("an item needs at least one option")
    demand = [sum(1 for c in current if c == p) for p in range(n)]
    ranked = list(extras) if extras is not None else sorted(range(n), key=lambda p: (-demand[p], p))
    room = [count // n] * n
    for p in ranked[: count % n]:
        room[p] += 1
    order = sorted(range(count), key=lambda i: (priority[i], i))
    out: list[int | None] = [None] * count
    for i in order:
        if 0 <= current[i] < n and room[current[i]] > 0:
            out[i], room[current[i]] = current[i], room[current[i]] - 1
    for i in order:
        if out[i] is None:
            p = max(range(n), key=lambda q: (room[q], -q))
            out[i], room[p] = p, room[p] - 1
    return [p for p in out if p is not None]


def with_key_at(item: CompiledItem, position: int) -> CompiledItem:
    """A copy of a multiple-choice item whose key sits at `position`, by swapping it with the option
    there (see `reorder` for lettered candidates)."""
    out = copy.deepcopy(item)
    order = swap_order(len(out.options), out.options.index(out.answer), position)
    out.options, out.answer, candidates = reorder(out.options, out.answer, out.provenance.get("candidates"), order)
    if candidates is not None:
        out.provenance["candidates"] = candidates
    out.provenance["key_position"] = position
    return out


def with_polarity(item: CompiledItem, polarity: str) -> CompiledItem:
    """A yes/no item asked the `polarity` way ("positive" or "negative"): itself, or its alternate
    (the same question the other way round, opposite key). An item without one stays as it is."""
    if item.provenance.get("polarity") == polarity or item.alternate is None:
        return copy.deepcopy(item)
    flipped = copy.deepcopy(item.alternate)
    flipped.alternate = copy.deepcopy(item)
    flipped.alternate.alternate = None
    return flipped


def with_answer(item: CompiledItem, answer: str) -> CompiledItem:
    """A yes/no item whose key is `answer`: itself, or the same question asked the other way
    round when it has one. An item without an alternate keeps its key."""
    if item.answer == answer or item.alternate is None:
        return copy.deepcopy(item)
    return with_polarity(item, str(item.alternate.provenance.get("polarity", "negative")))


POLARITIES = ("positive", "negative")


def _balance_yes_no(items: Sequence[CompiledItem], seed: int) -> list[CompiledItem]:
    """Half the questions asked each way, chosen by the seed alone: the wording says nothing about
    the fact. The keys follow the facts; the release freeze balances them over what it releases."""
    wanted = balanced_positions(len(items), 2, seed)
    return [with_polarity(it, POLARITIES[w]) for it, w in zip(items, wanted, strict=True)]


def balance(items: Sequence[CompiledItem], seed: int = 0) -> list[CompiledItem]:
    """Balance the keys of items of one task: multiple-choice keys spread over the positions as
    evenly as the count allows; yes/no questions asked half one way, half the other, independently
    of their facts. Numbers and timestamps have no position and come back unchanged."""
    if not items:
        return []
    formats = {it.answer_format for it in items}
    if len(formats) != 1:
        raise ValueError(f"balance one task at a time; got answer formats {sorted(formats)}")
    fmt = formats.pop()
    if fmt == F.YES_NO:
        return _balance_yes_no(items, seed)
    if fmt != F.MULTIPLE_CHOICE:
        return [copy.deepcopy(it) for it in items]
    sizes = {len(it.options) for it in items}
    if len(sizes) != 1:
        raise ValueError(f"balance one task at a time; got {sorted(sizes)} options per item")
    n = sizes.pop()
    # The seed orders the items and breaks ties, as it did when each item drew its position.
    rng = random.Random(seed)
    priority = [f"{rng.random():.17f}" for _ in items]
    positions = assign_positions([it.options.index(it.answer) for it in items], n, priority)
    return [with_key_at(it, p) for it, p in zip(items, positions, strict=True)]
