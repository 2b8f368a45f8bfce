"""Answer extraction: what a model's free-text reply answers, decided by fixed rules.

Deterministic and logged per item: every extraction says which rule matched (or why none did), so
a score can be audited line by line. There is never a random fallback (VLMEvalKit picks a random
option when its parser fails, which makes scores irreproducible and pulls weak models towards
chance); an answer no rule can read counts wrong and is listed.

Rules, in order, for multiple choice (options are the item's option texts; letters A, B, ... by
position):
  1. the whole reply is a letter, alone or dressed: "B", "(B)", "B.", "B)", "[B]", "Option B";
  2. the reply is exactly an option's text (case, spaces and a final full stop ignored);
  3. a stated answer: "The answer is B", "Answer: (B) north", "answer is north";
  4. a leading letter followed by text: "B. north-east", "(B) north-east";
  5. exactly one option's text appears in the reply as whole words.
Yes/no items also read yes, no, true, false, y, n. Numbers read digits (with a sign, decimals and
thousands separators) or number words up to the millions ("twenty-one", "a dozen" is not read).
Timestamps read seconds ("12.5", "12.5 s", "12.5 seconds") or mm:ss / hh:mm:ss (with decimals).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

LETTERS = "ABCDEFGH"


@dataclass(frozen=True)
class Extraction:
    """What a reply answers: `value` (an option text, a float, or None) and the rule that read it."""

    value: Any
    rule: str

    @property
    def parsed(self) -> bool:
        return self.value is not None


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().lower()).rstrip(".").strip()


_LETTER_ALONE = re.compile(r"^(?:option\s+)?[\(\[]?([a-h])[\)\]]?[.:)]?$", re.I)
_STATED = re.compile(r"(?:final\s+)?answer\s*(?:is|:)\s*(?:option\s+)?(.+)$", re.I)
_LEADING_LETTER = re.compile(r"^[\(\[]?([a-h])[\)\].:]\s+(.+)$", re.I)


def _letter(text: str, options: list[str]) -> str | None:
    match = _LETTER_ALONE.match(text.strip())
    if not match:
        return None
    index = LETTERS.index(match.group(1).upper())
    return options[index] if index < len(options) else None


def _by_text(text: str, options: list[str]) -> str | None:
    wanted = _norm(text)
    found = [o for o in options if _norm(o) == wanted]
    return found[0] if len(found) == 1 else None


def _contained(text: str, options: list[str]) -> str | None:
    """The one option whose text stands in the reply as whole words (longest texts first, so
    "north-east" is not also read as "north")."""
    reply = f" {_norm(text)} "
    hits: list[str] = []
    for option in sorted(options, key=lambda o: -len(o)):
        pattern = r"(?<![\w-])" + re.escape(_norm(option)) + r"(?![\w-])"
        if re.search(pattern, reply) and not any(_norm(option) in _norm(h) for h in hits):
            hits.append(option)
    return hits[0] if len(hits) == 1 else None


def extract_choice(reply: Any, options: list[str]) -> Extraction:
    """Read a multiple-choice or yes/no reply against the item's options."""
    if reply is None:
        return Extraction(None, "no answer given")
    text = str(reply).strip()
    if not text:
        return Extraction(None, "empty answer")
    options = [str(o) for o in options]
    if (value := _letter(text, options)) is not None:
        return Extraction(value, "letter")
    if (value := _by_text(text, options)) is not None:
        return Extraction(value, "option text")
    if (value := _yes_no(text, options)) is not None:
        return Extraction(value, "yes/no word")
    stated = _STATED.search(text)
    if stated:
        inner = stated.group(1).strip()
        for rule, read in (("stated letter", _letter), ("stated option text", _by_text)):
            if (value := read(inner, options)) is not None:
                return Extraction(value, rule)
        if (lead := _LEADING_LETTER.match(inner)) and (value := _letter(lead.group(1), options)) is not None:
            return Extraction(value, "stated letter")
    lead = _LEADING_LETTER.match(text)
    if lead and (value := _letter(lead.group(1), options)) is not None:
        return Extraction(value, "leading letter")
    if (value := _contained(text, options)) is not None:
        return Extraction(value, "option text in the reply")
    return Extraction(None, "no option, letter or option text found")


_YES, _NO = {"yes", "y", "true"}, {"no", "n", "false"}


def _yes_no(text: str, options: list[str]) -> str | None:
    lowered = {_norm(o): o for o in options}
    if set(lowered) != {"yes", "no"}:
        return None
    word = _norm(text).split(" ")[0].strip(",.!")
    if word in _YES:
        return lowered["yes"]
    if word in _NO:
        return lowered["no"]
    return None


_UNIT_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen"
)
_UNITS = {w: i for i, w in enumerate(_UNIT_WORDS.split(" "))}
_TEN_WORDS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_TENS = {w: 10 * (i + 2) for i, w in enumerate(_TEN_WORDS)}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000}
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+]?\.\d+")


def _words_to_number(text: str) -> float | None:
    words = [w for w in re.split(r"[\s-]+", _norm(text).replace(" and ", " ")) if w]
    words = [w for w in words if w not in ("there", "are", "is", "about", "approximately")]
    if not words or any(w not in _UNITS and w not in _TENS and w not in _SCALES for w in words):
        return None
    total, current = 0, 0
    for word in words:
        if word in _UNITS:
            current += _UNITS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        else:
            total += max(current, 1) * _SCALES[word]
            current = 0
    return float(total + current)


def extract_number(reply: Any) -> Extraction:
    """A count: the only number in the reply, in digits or words. Two different numbers are
    ambiguous and count wrong rather than picking one."""
    if reply is None:
        return Extraction(None, "no answer given")
    if isinstance(reply, int | float) and not isinstance(reply, bool):
        return Extraction(float(reply), "number") if math.isfinite(reply) else Extraction(None, "not a finite number")
    text = str(reply)
    found = {float(m.replace(",", "")) for m in _NUMBER.findall(text)}
    if len(found) == 1:
        return Extraction(found.pop(), "digits")
    if len(found) > 1:
        return Extraction(None, "several different numbers")
    words = _words_to_number(text)
    if words is not None:
        return Extraction(words, "number words")
    return Extraction(None, "no number found")


_CLOCK = re.compile(r"(?<![\d:])(?:(\d+):)?(\d{1,2}):(\d{2}(?:\.\d+)?)(?![\d:])")


def extract_seconds(reply: Any) -> Extraction:
    """A time in the video: seconds, or mm:ss / hh:mm:ss."""
    if reply is None:
        return Extraction(None, "no answer given")
    if isinstance(reply, int | float) and not isinstance(reply, bool):
        return Extraction(float(reply), "seconds") if math.isfinite(reply) else Extraction(None, "not a finite number")
    text = str(reply)
    clock = _CLOCK.findall(text)
    if len(clock) == 1:
        hours, minutes, seconds = clock[0]
        return Extraction(int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds), "clock time")
    if len(clock) > 1:
        return Extraction(None, "several times")
    number = extract_number(text)
    return Extraction(number.value, "seconds") if number.parsed else number


def extract(item: dict[str, Any], reply: Any) -> Extraction:
    """Dispatch on the item's answer format."""
    fmt = item["answer_format"]
    if fmt == "number":
        return extract_number(reply)
    if fmt == "timestamp":
        return extract_seconds(reply)
    return extract_choice(reply, item.get("options") or [])
