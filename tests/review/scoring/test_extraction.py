"""review.scoring.extraction: realistic model replies, table-driven, each with what it must read
(or why it must not), and the rules that never guess."""

from __future__ import annotations

from decimal import Decimal

import pytest

from review.scoring.extraction import extract, extract_choice, extract_number, extract_seconds
from review.scoring.metrics import item_value

SECTORS = ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"]
YN = ["yes", "no"]
MOVES = ["enters", "passes by", "stays away"]

# (reply, options, what it reads or None, the rule, or for None the start of the reason)
CHOICES = [
    # letters, alone or dressed
    ("B", SECTORS, "north-east", "letter"),
    ("(B)", SECTORS, "north-east", "letter"),
    ("B.", SECTORS, "north-east", "letter"),
    ("[b]", SECTORS, "north-east", "letter"),
    ("Option H", SECTORS, "north-west", "letter"),
    ("B\n\nThe target is up and to the right of the roundabout.", SECTORS, "north-east", "leading letter"),
    ("b) North-East", SECTORS, "north-east", "leading letter"),
    ("C. east, since the shadow falls that way", SECTORS, "east", "leading letter"),
    # option texts
    ("North-East.", SECTORS, "north-east", "option text"),
    ("  stays away  ", MOVES, "stays away", "option text"),
    ("I think it lies to the north-east of the roundabout.", SECTORS, "north-east", "option text in the reply"),
    ("The car never gets close: it stays away from the parking lot.", MOVES, "stays away", "option text in the reply"),
    ("A car enters from the east side.", SECTORS, "east", "option text in the reply"),  # "A" is an article
    # stated answers
    ("The answer is B", SECTORS, "north-east", "stated letter"),
    ("Answer: (C) east", SECTORS, "east", "stated letter"),
    ("The correct answer is south-west.", SECTORS, "south-west", "stated option text"),
    ("Looking at the video, the vehicle turns left. Final answer: D", SECTORS, "south-east", "stated letter"),
    ("The target moves along path (C).", ["A", "B", "C", "D"], "C", "stated letter"),
    ("After watching it twice, I'd pick option A.", ["A", "B", "C", "D"], "A", "stated letter"),
    ("B. Yes, the answer is B.", SECTORS, "north-east", "leading letter"),  # said twice, the same
    ("The answer is B, not A.", SECTORS, "north-east", "stated letter"),
    ("Option A is wrong because the track turns; the answer is (C).", SECTORS, "east", "stated letter"),
    ("So it's D.", ["A", "B", "C", "D"], "D", "stated letter"),
    # contradictions and ambiguity: unreadable, never a pick
    ("The answer is B. Actually it's C.", SECTORS, None, "contradictory answers"),
    ("A. On reflection, the answer is (D).", SECTORS, None, "contradictory answers"),
    ("it is not north-east, it is east", SECTORS, None, "several options named"),
    ("north or east", SECTORS, None, "several options named"),
    ("somewhere up there", SECTORS, None, "no option, letter or option text found"),
    ("I", SECTORS, None, "no option, letter or option text found"),  # not one of the eight letters
    ("The car takes a left turn at the junction.", ["A", "B", "C", "D"], None, "no option"),  # "a" is an article
    ("It is A car, I think.", ["A", "B", "C", "D"], None, "no option"),
    ("(A) is the road, (B) is the river: the car follows (B).", SECTORS, None, "contradictory answers"),
    ("E", ["a", "b", "c", "d"], None, "no option, letter or option text found"),
    ("", SECTORS, None, "empty answer"),
    (None, SECTORS, None, "no answer given"),
    # yes / no
    ("yes", YN, "yes", "option text"),
    ("No.", YN, "no", "option text"),
    ("True", YN, "yes", "yes/no word"),
    ("false", YN, "no", "yes/no word"),
    ("y", YN, "yes", "yes/no word"),
    ("A", YN, "yes", "letter"),
    ("Yes, it is visible.", YN, "yes", "yes/no word"),
    ("No, the region is never in view.", YN, "no", "yes/no word"),
    ("No it isn't, the trees hide it.", YN, "no", "yes/no word"),
    ("Well, yes.", YN, "yes", "yes/no word"),
    ("**Yes** - the roof is seen at 0:12.", YN, "yes", "yes/no word"),
    ("The answer is no.", YN, "no", "stated answer"),
    ("Answer: No", YN, "no", "stated answer"),
    ("Yes, there is no obstruction between them.", YN, "yes", "yes/no word"),  # a "no" inside is not read
    ("The drone passes over it. Yes.", YN, "yes", "yes/no word"),
    ("No doubt, it is visible.", YN, None, "an idiom"),
    ("No question, the car is seen.", YN, None, "an idiom"),
    ("No one could miss it.", YN, None, "an idiom"),
    ("No. Actually, yes.", YN, None, "contradictory answers"),
    ("Yes. Wait, no.", YN, None, "contradictory answers"),
    ("yes and no", YN, None, "contradictory answers"),
    ("The answer is yes. No, it is hidden.", YN, None, "contradictory answers"),
    ("Not visible.", YN, None, "no yes or no found"),
    ("It cannot be determined from the video.", YN, None, "no yes or no found"),
]


@pytest.mark.parametrize(("reply", "options", "value", "rule"), CHOICES)
def test_choice_replies(reply: object, options: list[str], value: str | None, rule: str) -> None:
    got = extract_choice(reply, options)
    assert got.value == value
    assert got.rule == rule if value is not None else got.rule.startswith(rule)


NUMBERS = [
    ("7", Decimal(7), "digits"),
    (7, Decimal(7), "number"),
    (7.0, Decimal(7), "number"),
    ("There are 7 cars.", Decimal(7), "digits"),
    ("I count 12 vehicles inside the zone at 4.0 s.", Decimal(12), "digits"),  # 4.0 s is a time, not a count
    ("At 0:12 there are 3 cars in the car park.", Decimal(3), "digits"),
    ("Frame 12 shows 5 cars.", Decimal(5), "digits"),
    ("1,200", Decimal(1200), "digits"),
    ("-3", Decimal(-3), "digits"),
    ("2.5", Decimal("2.5"), "digits"),
    ("ten", Decimal(10), "number words"),
    ("About ten.", Decimal(10), "number words"),
    ("twenty-one", Decimal(21), "number words"),
    ("one hundred and five", Decimal(105), "number words"),
    ("two thousand three hundred", Decimal(2300), "number words"),
    ("zero", Decimal(0), "number words"),
    ("None.", Decimal(0), "none"),
    ("There are no cars in the zone at 4.0 s.", Decimal(0), "none"),
    ("No vehicles are inside.", Decimal(0), "none"),
    ("No idea.", None, "no number found"),
    ("No doubt there are several.", None, "no number found"),
    ("3 or 4", None, "several different numbers"),
    ("3-4 cars", None, "several different numbers"),
    ("5 cars and 2 trucks", None, "several different numbers"),
    ("about 40%", None, "a percentage (%), not a count"),
    ("The zone is 12 m wide.", None, "a length (m), not a count"),
    ("at frame 12", None, "a frame number (frame), not a count"),
    ("the 2nd one", None, "an ordinal (nd), not a count"),
    ("at 12 s", None, "a time, not a count"),
    ("many", None, "no number found"),
    ("nan", None, "no number found"),
    (float("inf"), None, "not a finite number"),
    (True, None, "no number found"),
]


@pytest.mark.parametrize(("reply", "value", "rule"), NUMBERS)
def test_count_replies(reply: object, value: Decimal | None, rule: str) -> None:
    got = extract_number(reply)
    assert (got.value, got.rule) == (value, rule)


TIMES = [
    ("12.5", Decimal("12.5"), "seconds"),
    (4, Decimal(4), "seconds"),
    (13.5, Decimal("13.5"), "seconds"),
    ("12.5 s", Decimal("12.5"), "time in s"),
    ("at 65 seconds", Decimal(65), "time in seconds"),
    ("The region first appears at around 8 sec into the video.", Decimal(8), "time in sec"),
    ("1:05", Decimal(65), "clock time"),
    ("00:01:05", Decimal(65), "clock time"),
    ("01:02:03.5", Decimal("3723.5"), "clock time"),
    ("It first appears at 0:07.", Decimal(7), "clock time"),
    ("1 min 5 s", Decimal(65), "time in min and s"),
    ("1 minute and 5 seconds", Decimal(65), "time in minute and seconds"),
    ("2 minutes", Decimal(120), "time in minutes"),
    ("1.5 minutes", Decimal(90), "time in minutes"),
    ("800 ms", Decimal("0.8"), "time in ms"),
    ("It appears at 12 s, with 3 cars around it.", Decimal(12), "time in s"),  # 3 cars is not a time
    ("twelve seconds", Decimal(12), "number words"),
    ("two minutes", Decimal(120), "number words"),
    # not seconds, or not one time: unreadable
    ("at frame 12", None, "a frame number (frame), not a time"),
    ("frame #240", None, "a frame number (frame), not a time"),
    ("12 m", None, "a length (m), not a time"),  # m is metres, never minutes
    ("30 px from the top", None, "a number of pixels (px), not a time"),
    ("about 40%", None, "a percentage (%), not a time"),
    ("between 0:07 and 0:09", None, "several times"),
    ("between 12 and 14 seconds", None, "several times"),
    ("12 to 14", None, "several times"),
    ("It shows up at 5 s and again at 20 s.", None, "several times"),
    ("3 cars", None, "a count of something, not a time"),
    ("never", None, "no time found"),
    ("inf", None, "no time found"),
]


@pytest.mark.parametrize(("reply", "value", "rule"), TIMES)
def test_timestamp_replies(reply: object, value: Decimal | None, rule: str) -> None:
    got = extract_seconds(reply)
    assert (got.value, got.rule) == (value, rule)


def test_unreadable_replies_are_the_same_every_time_never_a_guess() -> None:
    for reply in ("north or east", "No doubt, it is visible.", "somewhere up there"):
        options = YN if "doubt" in reply else SECTORS
        assert {extract_choice(reply, options).value for _ in range(20)} == {None}


def test_read_numbers_are_decimals_so_scores_are_exact() -> None:
    # the reply "2.2" read as a Decimal is exactly 1 s from the key 1.2
    item = {"answer_format": "timestamp", "answer": "1.2"}
    found = extract(item, "2.2 s")
    assert found.value == Decimal("2.2") and item_value(item, found) == 1.0
    count = {"answer_format": "number", "answer": "20"}
    assert item_value(count, extract(count, "21 cars")) == 0.9


def test_at_frame_12_scores_zero_not_as_12_seconds() -> None:
    item = {"answer_format": "timestamp", "answer": "12"}
    assert item_value(item, extract(item, "at frame 12")) == 0.0


def test_no_doubt_is_not_read_as_no() -> None:
    item = {"answer_format": "yes_no", "answer": "no", "options": YN}
    found = extract(item, "No doubt, it is visible.")
    assert found.value is None and item_value(item, found) == 0.0
