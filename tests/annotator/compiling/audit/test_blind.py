"""annotator.compiling.audit.blind: the scikit-learn text-only baseline across scenes."""

from __future__ import annotations

import math
import random

from annotator.compiling.audit import Row, audit, blind_baseline
from annotator.compiling.audit.blind import blind_reason, document

LETTERS = ["A", "B", "C", "D"]


def _row(i: int, *, scene: int, question: str, answer: str) -> Row:
    return Row(i, "scene_association", scene, question, LETTERS, answer, "multiple_choice", frozenset({i}), "")


def _set(n: int, *, leak: bool, seed: int = 0) -> list[Row]:
    """Items over 4 scenes with keys at random positions; with `leak`, the question's last word names
    the key's position (as a careless phrasing could)."""
    rng = random.Random(seed)
    words = ["alpha", "bravo", "charlie", "delta"]
    rows = []
    for i in range(n):
        key = rng.randrange(4)
        word = words[key] if leak else rng.choice(words)
        rows.append(_row(i, scene=i % 4, question=f"Which region is it, {word}?", answer=LETTERS[key]))
    return rows


def test_a_blind_model_finds_wording_that_gives_the_key_away() -> None:
    blind = blind_baseline(_set(120, leak=True))
    assert blind is not None and blind.accuracy > 0.9 and blind.p_value < 1e-6
    assert (blind.chance, blind.n_test, blind.folds) == (0.25, 120, 4)
    [report] = audit(_set(120, leak=True))
    assert any("text-only model" in f for f in report.flags)


def test_a_small_leaky_set_is_flagged_too() -> None:
    # 16 items over 4 scenes: the old rule needed 20 before judging at all
    blind = blind_baseline(_set(16, leak=True, seed=3))
    assert blind is not None and blind.n_test == 16 and blind.p_value < 0.05
    # the p-value is the exact binomial tail of its count
    tail = sum(math.comb(16, k) * 0.25**k * 0.75 ** (16 - k) for k in range(blind.correct, 17))
    assert abs(blind.p_value - tail) < 1e-4


def test_a_blind_model_sits_near_chance_on_wording_that_says_nothing() -> None:
    blind = blind_baseline(_set(200, leak=False))
    assert blind is not None and abs(blind.accuracy - 0.25) < 0.1 and blind.p_value > 0.05
    [report] = audit(_set(200, leak=False))
    assert not any("text-only" in f for f in report.flags)


def test_the_blind_model_needs_two_scenes_and_a_few_items() -> None:
    one_scene = [_row(i, scene=1, question="q", answer="A") for i in range(40)]
    assert blind_baseline(one_scene) is None and blind_reason(one_scene) == "needs items from two scenes or more"
    few = [_row(i, scene=i % 2, question="q", answer="A") for i in range(4)]
    assert blind_baseline(few) is None and blind_reason(few) == "needs 6 items or more"


def test_one_key_position_in_training_predicts_that_position() -> None:
    # every key at A: the model is the prior, and it is right every time (and flagged)
    rows = [_row(i, scene=i % 3, question="q", answer="A") for i in range(9)]
    blind = blind_baseline(rows)
    assert blind is not None and blind.correct == 9 and blind.p_value < 0.001


def test_the_document_tags_option_words_with_their_position() -> None:
    row = Row(1, "region_interaction", 1, "Does it enter?", ["enters", "stays away"], "enters", "multiple_choice",
              frozenset(), "")  # fmt: skip
    assert document(row) == "q_does q_it q_enter o0_enters o1_stays o1_away"
