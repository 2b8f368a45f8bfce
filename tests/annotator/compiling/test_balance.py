"""annotator.compiling.balance: answer keys spread over positions as evenly as the count allows,
yes/no questions asked half each way independently of their facts, deterministic and pure."""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotator.compiling.balance import (
    assign_positions,
    balance,
    balanced_positions,
    reorder,
    with_answer,
    with_key_at,
)
from annotator.compiling.qa import get_template
from annotator.compiling.qa.base import CompiledItem
from annotator.models import Item
from tests.annotator.compiling import builders as b

MC = Item.AnswerFormat.MULTIPLE_CHOICE


def _mc(answer_at: int, n: int = 4) -> CompiledItem:
    options = [f"option {i}" for i in range(n)]
    return CompiledItem("q?", options, options[answer_at], MC, {"key_position": answer_at})


@given(st.integers(0, 200), st.integers(1, 8), st.integers(0, 2**32))
def test_balanced_positions_differ_by_at_most_one(count: int, n: int, seed: int) -> None:
    positions = balanced_positions(count, n, seed)
    tally = Counter(positions)
    assert len(positions) == count and set(positions) <= set(range(n))
    assert max(tally.get(p, 0) for p in range(n)) - min(tally.get(p, 0) for p in range(n)) <= 1
    assert positions == balanced_positions(count, n, seed)


@given(st.lists(st.integers(0, 3), min_size=1, max_size=40), st.integers(0, 2**32))
def test_balance_spreads_multiple_choice_keys_and_keeps_the_options(keys: list[int], seed: int) -> None:
    # given items whose keys all sit wherever their seeds put them (here: heavily skewed)
    items = [_mc(k) for k in keys]
    before = copy.deepcopy(items)
    out = balance(items, seed)
    tally = Counter(it.options.index(it.answer) for it in out)
    # then each position holds the key count // 4 or count // 4 + 1 times
    assert set(tally.values()) <= {len(items) // 4, len(items) // 4 + 1}
    for old, new in zip(items, out, strict=True):
        assert sorted(new.options) == sorted(old.options) and new.answer == old.answer
        assert new.provenance["key_position"] == new.options.index(new.answer)
    assert items == before  # pure: the input is untouched
    assert out == balance(items, seed)


def test_lettered_items_move_candidates_not_letters() -> None:
    # given an Event Geo-localization item with its candidates drawn as A-D
    event = b.point(50, 50, facts={"event": "the bus stops"}, time_start=2)
    item = get_template(Item.Task.EVENT_GEOLOCALIZATION).compile([event], random.Random(4))
    truth = next(c for c in item.provenance["candidates"] if c["source"] == "truth")
    # when the key is moved to D
    moved = with_key_at(item, 3)
    # then the letters stay A-D, the answer is D, and D is the true place
    assert moved.options == ["A", "B", "C", "D"] and moved.answer == "D"
    assert moved.provenance["candidates"][3]["geometry"] == truth["geometry"]
    assert [c["letter"] for c in moved.provenance["candidates"]] == ["A", "B", "C", "D"]
    assert moved.provenance["key_position"] == 3


def _yes_no(visible: bool, seed: int) -> CompiledItem:
    region = b.box_region(10, 10, 40, 40, facts={"visible": visible})
    return get_template(Item.Task.TARGET_VISIBILITY).compile([region], random.Random(seed))


def test_yes_no_items_carry_the_other_polarity() -> None:
    item = _yes_no(True, 1)
    assert item.alternate is not None
    assert {item.answer, item.alternate.answer} == {"yes", "no"}
    assert {item.provenance["polarity"], item.alternate.provenance["polarity"]} == {"positive", "negative"}
    flipped = with_answer(item, "no" if item.answer == "yes" else "yes")
    assert flipped.question == item.alternate.question and flipped.alternate.question == item.question  # type: ignore[union-attr]


@pytest.mark.parametrize("visible", [True, False])
def test_balance_asks_half_each_way_whatever_the_facts(visible: bool) -> None:
    # given 9 items that all have the same fact (a skewed set)
    items = [_yes_no(visible, s) for s in range(9)]
    out = balance(items, seed=11)
    # then the questions are asked 5/4 positive/negative, the split the seed alone decides
    polarity = [it.provenance["polarity"] for it in out]
    assert sorted(Counter(polarity).values()) == [4, 5]
    assert polarity == [it.provenance["polarity"] for it in balance([_yes_no(not visible, s) for s in range(9)], 11)]
    for it in out:
        positive = it.provenance["polarity"] == "positive"
        assert it.answer == ("yes" if positive == visible else "no")
        assert it.provenance["visible"] is visible
        # the record of the other way round follows the swap
        assert it.provenance["alternate"]["polarity"] != it.provenance["polarity"]
        assert it.alternate is not None and it.alternate.question == it.provenance["alternate"]["question"]


def test_items_without_an_alternate_keep_their_wording() -> None:
    fixed = [CompiledItem("q?", ["yes", "no"], "yes", Item.AnswerFormat.YES_NO, {}) for _ in range(3)]
    flexible = [_yes_no(True, s) for s in range(4)]
    out = balance([*fixed, *flexible], seed=2)
    assert [it.answer for it in out[:3]] == ["yes", "yes", "yes"]
    assert all(it.provenance.get("polarity") in ("positive", "negative") for it in out[3:])


def test_assign_positions_keeps_what_fits_and_moves_the_rest() -> None:
    # given 8 keys, 6 of them at A: two stay at A, the rest fill B, C, D
    current = [0, 0, 0, 0, 0, 0, 1, 2]
    out = assign_positions(current, 4, [f"{i}" for i in range(8)])
    assert Counter(out) == {0: 2, 1: 2, 2: 2, 3: 2}
    assert out[6:] == [1, 2] and out[:2] == [0, 0]  # kept where they were, in priority order
    assert sum(a != b for a, b in zip(current, out, strict=True)) == 4  # the fewest moves
    assert assign_positions(current, 4, [f"{i}" for i in range(8)]) == out


def test_reorder_letters_candidates_anew() -> None:
    candidates = [{"letter": x, "source": s} for x, s in zip("ABC", ["wrong", "truth", "wrong2"], strict=True)]
    options, answer, moved = reorder(["A", "B", "C"], "B", candidates, [1, 2, 0])
    assert options == ["A", "B", "C"] and answer == "A"
    assert [(c["letter"], c["source"]) for c in moved or []] == [("A", "truth"), ("B", "wrong2"), ("C", "wrong")]
    assert candidates[1]["letter"] == "B"  # the input is untouched
    assert reorder(["x", "y", "z"], "y", None, [2, 0, 1])[:2] == (["z", "x", "y"], "y")
    with pytest.raises(ValueError, match="not an order"):
        reorder(["x", "y"], "y", None, [0, 0])


def test_numbers_pass_through_and_mixed_formats_are_refused() -> None:
    number = CompiledItem("how many?", [], "3", Item.AnswerFormat.NUMBER, {})
    assert balance([number]) == [number]
    assert balance([]) == []
    with pytest.raises(ValueError, match="one task at a time"):
        balance([number, _mc(0)])
    with pytest.raises(ValueError, match="options per item"):
        balance([_mc(0, 4), _mc(0, 8)])
