"""annotator.compiling.audit.figures: each figure through SciPy against values worked out by hand,
at its boundaries, and each exact test on small sets."""

from __future__ import annotations

import math

import pytest

from annotator.compiling.audit import Row, clean, position_bias, position_spread
from annotator.compiling.audit.figures import binomial_greater, fact_prior, key_texts, longest_key, wording_key

LETTERS = ["A", "B", "C", "D"]
MOVES = ["enters", "passes by", "stays away"]


def _row(i: int, *, options: list[str] | None = None, answer: str = "A", scene: int = 1) -> Row:
    return Row(i, "region_interaction", scene, "What does it do?", options or LETTERS, answer, "multiple_choice",
               frozenset({i}), "")  # fmt: skip


def test_uniform_positions_have_entropy_1_and_kl_0() -> None:
    assert position_spread([5, 5, 5, 5]) == (1.0, 0.25, 0.0)
    bias = position_bias([0, 1, 2, 3] * 5, 4)
    assert (bias.entropy, bias.p_mode, bias.kl_uniform, bias.p_value, bias.p_uniform) == (1.0, 0.25, 0.0, 1.0, 1.0)


def test_one_position_has_entropy_0_p_mode_1_and_kl_ln_k() -> None:
    entropy, p_mode, kl = position_spread([0, 0, 12, 0])
    assert (entropy, p_mode) == (0.0, 1.0) and kl == pytest.approx(math.log(4), abs=1e-4)
    assert f"{entropy:.3f}" == "0.000" and math.copysign(1, entropy) == 1.0  # never "-0.000"


def test_spread_against_hand_computed_values() -> None:
    # given keys A, A, A, B of two options: H = -(3/4 ln 3/4 + 1/4 ln 1/4) / ln 2, KL = ln 2 - H ln 2
    h = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    entropy, p_mode, kl = position_spread([3, 1])
    assert entropy == pytest.approx(h / math.log(2), abs=1e-4)
    assert p_mode == 0.75 and kl == pytest.approx(math.log(2) - h, abs=1e-4)


def test_clean_never_leaves_negative_zero() -> None:
    assert f"{clean(-1e-17):.3f}" == "0.000" and f"{clean(-0.0):.3f}" == "0.000"
    assert clean(-0.25) == -0.25


def test_exact_binomial_against_a_hand_sum() -> None:
    # P(X >= 11), X ~ Bin(18, 1/3): the tail summed by hand
    tail = sum(math.comb(18, k) * (1 / 3) ** k * (2 / 3) ** (18 - k) for k in range(11, 19))
    assert binomial_greater(11, 18, 1 / 3) == pytest.approx(tail, rel=1e-9)
    assert binomial_greater(0, 0, 0.5) == 1.0


def test_the_mode_position_is_tested_exactly_with_bonferroni() -> None:
    # given 9 of 12 keys at C of four: P(X >= 9 | 12, 1/4) times the 4 positions tried
    tail = sum(math.comb(12, k) * 0.25**k * 0.75 ** (12 - k) for k in range(9, 13))
    bias = position_bias([2] * 9 + [0, 1, 3], 4)
    assert bias.mode_position == 2 and bias.p_value == pytest.approx(4 * tail, abs=1e-4)
    assert bias.p_value < 0.05


def test_an_option_text_keyed_too_often_in_a_small_set() -> None:
    # given Region Interaction's "stays away" as the key in 11 of 18 items (chance 1/3 each)
    rows = [_row(i, options=MOVES, answer="stays away" if i < 11 else MOVES[i % 2]) for i in range(18)]
    top = key_texts(rows)[0]
    tail = sum(math.comb(18, k) * (1 / 3) ** k * (2 / 3) ** (18 - k) for k in range(11, 19))
    assert (top.what, top.hits, top.n, top.chance) == ("stays away", 11, 18, 0.3333)
    assert top.p_value == pytest.approx(3 * tail, abs=1e-4) and top.p_value < 0.05


def test_even_texts_and_rare_texts_are_not_suspects() -> None:
    fair = [_row(i, options=MOVES, answer=MOVES[i % 3]) for i in range(18)]
    assert all(t.p_value == 1.0 or t.p_value > 0.5 for t in key_texts(fair))
    # a text offered in fewer than MIN_TEXT_OFFERS items is not tested; letters are positions
    assert key_texts([_row(i, options=["x", "y"], answer="x") for i in range(4)]) == []
    assert key_texts([_row(i) for i in range(30)]) == []


def test_the_longest_option_share_and_its_test() -> None:
    rows = [
        _row(1, options=["it goes into the park", "it stays away", "it passes"], answer="it goes into the park"),
        _row(2, options=["north", "south-west", "east"], answer="north"),
        _row(3),  # letters: all one length, not judged
    ]
    share = longest_key(rows)
    assert share is not None and (share.hits, share.n, share.share) == (1, 2, 0.5)
    assert share.chance == pytest.approx(1 / 3, abs=1e-4)
    assert share.p_value == pytest.approx(1 - (2 / 3) ** 2, abs=1e-4)  # P(X >= 1 | 2, 1/3)
    assert longest_key([_row(4)]) is None


def _yes_no(i: int, truth: bool, polarity: str) -> Row:
    answer = "yes" if truth == (polarity == "positive") else "no"
    return Row(i, "target_visibility", 1 + i % 3, "Is it seen?", ["yes", "no"], answer, "yes_no", frozenset({i}),
               "", truth, polarity)  # fmt: skip


def test_the_facts_prior_is_tested_two_sided_on_a_small_set() -> None:
    # 9 of 10 hold: P(|X - 5| >= 4) = 2 * (1 + 10) / 1024
    prior = fact_prior([_yes_no(i, i < 9, "positive") for i in range(10)])
    assert prior is not None and (prior.holds, prior.n, prior.share) == (9, 10, 0.9)
    assert prior.p_value == pytest.approx(22 / 1024, abs=1e-4)
    even = fact_prior([_yes_no(i, i % 2 == 0, "positive") for i in range(10)])
    assert even is not None and even.p_value == 1.0


def test_negated_wording_that_tells_the_key_by_fishers_exact_test() -> None:
    # given the fact always holding, keys balanced by asking half the questions negated: every
    # negated question is keyed "no", every positive one "yes"
    rows = [_yes_no(i, True, "negative" if i % 2 else "positive") for i in range(12)]
    wording = wording_key(rows)
    assert wording is not None and (wording.negative_no, wording.negative, wording.positive_yes) == (6, 6, 6)
    # Fisher's two-sided p for [[6, 0], [0, 6]]: 2 / C(12, 6)
    assert wording.p_value == pytest.approx(2 / math.comb(12, 6), abs=1e-4)
    # wording independent of the key is not
    mixed = [_yes_no(i, i % 4 < 2, "negative" if i % 2 else "positive") for i in range(12)]
    assert wording_key(mixed) is not None and wording_key(mixed).p_value > 0.5  # type: ignore[union-attr]
    assert wording_key([_yes_no(i, True, "positive") for i in range(4)]) is None  # one wording only
