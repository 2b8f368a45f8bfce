"""review.scoring.extraction: every documented form of answer, and no guessing."""

from __future__ import annotations

import pytest

from review.scoring.extraction import extract_choice, extract_number, extract_seconds

SECTORS = ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"]


@pytest.mark.parametrize(
    ("reply", "value", "rule"),
    [
        ("B", "north-east", "letter"),
        ("(B)", "north-east", "letter"),
        ("B.", "north-east", "letter"),
        ("[b]", "north-east", "letter"),
        ("Option H", "north-west", "letter"),
        ("North-East.", "north-east", "option text"),
        ("The answer is B", "north-east", "stated letter"),
        ("Answer: (C) east", "east", "stated letter"),
        ("The answer is south-west", "south-west", "stated option text"),
        ("b) North-East", "north-east", "leading letter"),
        ("I think it lies to the north-east of the roundabout.", "north-east", "option text in the reply"),
    ],
)
def test_choice_forms(reply: str, value: str, rule: str) -> None:
    got = extract_choice(reply, SECTORS)
    assert (got.value, got.rule) == (value, rule)


@pytest.mark.parametrize(
    "reply",
    [
        "",
        None,
        "I",  # not one of the eight letters
        "north or east",  # two options named: ambiguous, never a pick
        "somewhere up there",
    ],
)
def test_unreadable_choices_are_none_never_a_guess(reply: object) -> None:
    # the same reply always gives the same (empty) answer: no random fallback
    results = {extract_choice(reply, SECTORS).value for _ in range(20)}
    assert results == {None}


def test_a_letter_past_the_options_is_not_read() -> None:
    assert extract_choice("E", ["a", "b", "c", "d"]).value is None


def test_longest_option_text_wins_inside_a_sentence() -> None:
    # "north-east" contains "north"; the reply names only the former
    assert extract_choice("it is north-east", SECTORS).value == "north-east"


@pytest.mark.parametrize(
    ("reply", "value"),
    [("yes", "yes"), ("No.", "no"), ("True", "yes"), ("false", "no"), ("Yes, it is visible.", "yes"), ("A", "yes")],
)
def test_yes_no_words(reply: str, value: str) -> None:
    assert extract_choice(reply, ["yes", "no"]).value == value


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ("7", 7.0),
        (7, 7.0),
        ("There are 7 cars.", 7.0),
        ("1,200", 1200.0),
        ("-3", -3.0),
        ("2.5", 2.5),
        ("ten", 10.0),
        ("twenty-one", 21.0),
        ("one hundred and five", 105.0),
        ("two thousand three hundred", 2300.0),
        ("zero", 0.0),
    ],
)
def test_numbers(reply: object, value: float) -> None:
    assert extract_number(reply).value == value


@pytest.mark.parametrize(("reply", "rule"), [("3 or 4", "several different numbers"), ("many", "no number found")])
def test_ambiguous_or_missing_numbers(reply: str, rule: str) -> None:
    got = extract_number(reply)
    assert (got.value, got.rule) == (None, rule)


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ("12.5", 12.5),
        ("12.5 s", 12.5),
        ("at 65 seconds", 65.0),
        ("1:05", 65.0),
        ("00:01:05", 65.0),
        ("01:02:03.5", 3723.5),
        ("It first appears at 0:07.", 7.0),
        (4, 4.0),
    ],
)
def test_timestamps(reply: object, value: float) -> None:
    assert extract_seconds(reply).value == value


def test_two_times_are_ambiguous() -> None:
    assert extract_seconds("between 0:07 and 0:09").value is None
