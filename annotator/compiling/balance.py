"""Answer-key balance over a set of items of one task: a model that always picks the same position,
or always says yes, should score chance and no more. Pure functions: items and a seed in, new items
out, the same every time.

One compiled item places a multiple-choice key where its seed says (uniform over seeds) and asks
a yes/no question the positive way; a set of items is balanced exactly here, by moving each key
to an assigned position (multiple choice) or by asking some questions the other way round
(yes/no, from each item's alternate)."""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence

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


def with_key_at(item: CompiledItem, position: int) -> CompiledItem:
    """A copy of a multiple-choice item whose key sits at `position`, by swapping it with the option
    there. When the options are letters naming candidates drawn on the image
    (provenance["candidates"], aligned with the options), the candidates swap and the letters stay."""
    out = copy.deepcopy(item)
    current = out.options.index(out.answer)
    candidates = out.provenance.get("candidates")
    if candidates is not None:
        candidates[current], candidates[position] = candidates[position], candidates[current]
        for letter, candidate in zip(out.options, candidates, strict=True):
            candidate["letter"] = letter
        out.answer = out.options[position]
    else:
        out.options[current], out.options[position] = out.options[position], out.options[current]
    out.provenance["key_position"] = position
    return out


def with_answer(item: CompiledItem, answer: str) -> CompiledItem:
    """A yes/no item whose key is `answer`: itself, or the same question asked the other way
    round when it has one. An item without an alternate keeps its key."""
    if item.answer == answer or item.alternate is None:
        return copy.deepcopy(item)
    flipped = copy.deepcopy(item.alternate)
    flipped.alternate = copy.deepcopy(item)
    flipped.alternate.alternate = None
    return flipped


def _balance_yes_no(items: Sequence[CompiledItem], seed: int) -> list[CompiledItem]:
    flexible = [i for i, it in enumerate(items) if it.alternate is not None]
    fixed_yes = sum(1 for it in items if it.alternate is None and it.answer == "yes")
    fixed_no = len(items) - len(flexible) - fixed_yes
    # yes = fixed_yes + k, no = fixed_no + (len(flexible) - k): the k that makes them closest.
    k = min(max((len(flexible) + fixed_no - fixed_yes) // 2, 0), len(flexible))
    order = flexible[:]
    random.Random(seed).shuffle(order)
    wanted = {i: ("yes" if rank < k else "no") for rank, i in enumerate(order)}
    return [with_answer(it, wanted[i]) if i in wanted else copy.deepcopy(it) for i, it in enumerate(items)]


def balance(items: Sequence[CompiledItem], seed: int = 0) -> list[CompiledItem]:
    """Balance the keys of items of one task: multiple-choice keys spread over the positions as
    evenly as the count allows, yes/no keys as close to half and half as the alternates allow.
    Numbers and timestamps have no position and come back unchanged."""
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
    positions = balanced_positions(len(items), sizes.pop(), seed)
    return [with_key_at(it, p) for it, p in zip(items, positions, strict=True)]
