"""Counts and times: digits or number words, with the units that make a number something else."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from .base import Extraction, _norm

_UNIT_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen"
)
_UNITS = {w: i for i, w in enumerate(_UNIT_WORDS.split(" "))}
_TEN_WORDS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_TENS = {w: 10 * (i + 2) for i, w in enumerate(_TEN_WORDS)}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000}
_FILLER_WORDS = {"there", "are", "is", "about", "approximately", "i", "count", "see", "it", "at", "after"}

_SECONDS = {"s", "sec", "secs", "second", "seconds"}
_MINUTES = {"min", "mins", "minute", "minutes"}
_HOURS = {"h", "hr", "hrs", "hour", "hours"}
_MILLIS = {"ms", "millisecond", "milliseconds"}
_TIME_FACTORS = {
    **dict.fromkeys(_SECONDS, Decimal(1)),
    **dict.fromkeys(_MINUTES, Decimal(60)),
    **dict.fromkeys(_HOURS, Decimal(3600)),
    **dict.fromkeys(_MILLIS, Decimal("0.001")),
}
# Units that make a number a measure, never a count or a time: what each is called in a refusal.
_MEASURES = {
    **dict.fromkeys(("frame", "frames", "fps"), "a frame number"),
    **dict.fromkeys(("m", "metre", "metres", "meter", "meters", "cm", "km", "ft", "feet", "foot"), "a length"),
    **dict.fromkeys(("px", "pixel", "pixels"), "a number of pixels"),
    **dict.fromkeys(("%", "percent", "per cent"), "a percentage"),
    **dict.fromkeys(("°", "deg", "degree", "degrees"), "an angle"),
    **dict.fromkeys(("mph", "kmh", "km/h", "x"), "a rate"),
    **dict.fromkeys(("st", "nd", "rd", "th"), "an ordinal"),
}
_CONNECTORS = {"and", "or", "to", "-", "–", "until", "through"}
_NUMBER_TEXT = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+"
_QUANTITY = re.compile(
    r"(?P<clock>(?<![\d:.])(?:\d+:)?\d{1,2}:\d{2}(?:\.\d+)?(?![\d:]))"
    rf"|(?<![\w.,])(?P<sign>[-+])?(?P<num>{_NUMBER_TEXT})(?![\d,])"
)
_AFTER = re.compile(r"\s*(?P<unit>%|°|km/h|per cent|[a-z]+)?", re.I)
_BEFORE_FRAME = re.compile(r"(?:frame|frames|frame no\.?|frame number|#)\s*$", re.I)


@dataclass(frozen=True)
class _Quantity:
    value: Decimal
    kind: str  # "clock", "time" (a time unit), "bare", "counted" (of objects), "measure"
    unit: str  # the unit or the word after the number ("" for none)


def _quantities(text: str) -> list[_Quantity]:
    out = []
    for match in _QUANTITY.finditer(text):
        if match.group("clock"):
            parts = [Decimal(p) for p in match.group("clock").split(":")]
            seconds = sum(p * 60**k for k, p in enumerate(reversed(parts)))
            out.append(_Quantity(seconds, "clock", ""))
            continue
        value = Decimal(match.group("num").replace(",", ""))
        if match.group("sign") == "-":
            value = -value
        after = _AFTER.match(text, match.end())
        unit = (after.group("unit") or "").lower() if after else ""
        if _BEFORE_FRAME.search(text[: match.start()]):
            out.append(_Quantity(value, "measure", "frame"))
        elif unit in _TIME_FACTORS:
            out.append(_Quantity(value * _TIME_FACTORS[unit], "time", unit))
        elif unit in _MEASURES:
            out.append(_Quantity(value, "measure", unit))
        elif unit and unit not in _CONNECTORS:
            out.append(_Quantity(value, "counted", unit))
        else:
            out.append(_Quantity(value, "bare", unit))
    return _join_durations(text, out)


def _join_durations(text: str, found: list[_Quantity]) -> list[_Quantity]:
    """ "1 min 5 s", "1 minute and 5 seconds", "1 h 2 min": one time, the larger unit first."""
    spans = list(_QUANTITY.finditer(text))
    out: list[_Quantity] = []
    for k, q in enumerate(found):
        previous = out[-1] if out else None
        if (
            previous is not None
            and q.kind == "time"
            and previous.kind == "time"
            and _TIME_FACTORS[previous.unit.split(" and ")[-1]] > _TIME_FACTORS[q.unit]
            and re.fullmatch(r"\s*[a-z]+\s*(?:,|and)?\s*", text[spans[k - 1].end() : spans[k].start()], re.I)
        ):
            out[-1] = _Quantity(previous.value + q.value, "time", f"{previous.unit} and {q.unit}")
        else:
            out.append(q)
    return out


def _words_to_number(text: str) -> Decimal | None:
    words = [w for w in re.split(r"[\s-]+", _norm(text).replace(" and ", " ")) if w]
    words = [w for w in words if w not in _FILLER_WORDS]
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
    return Decimal(total + current)


def _numeric(reply: Any, rule: str) -> Extraction | None:
    """A reply that is already a number (JSON): read as its decimal text; None for text."""
    if isinstance(reply, bool) or not isinstance(reply, int | float | Decimal):
        return None
    try:
        value = Decimal(repr(reply)) if isinstance(reply, float) else Decimal(reply)
    except InvalidOperation:
        return Extraction(None, "not a finite number")
    return Extraction(value, rule) if value.is_finite() else Extraction(None, "not a finite number")


def _measure_refusal(measures: list[_Quantity], what: str) -> Extraction:
    names = list(dict.fromkeys(f"{_MEASURES[q.unit]} ({q.unit})" for q in measures))
    return Extraction(None, f"{' and '.join(names)}, not {what}")


# "None", "There are no cars (at 4.0 s)", "No vehicles are inside": a count of 0. Not "No idea",
# "No doubt" or "No one knows".
_NONE = re.compile(
    r"^\W*(?:none\b|(?:there (?:are|is|were|was) )?no (?!doubt|idea|clue|way|answer|one\b|question)[a-z]+s?\b)",
    re.I,
)


def extract_number(reply: Any) -> Extraction:
    """A count: the one number in the reply that counts something, in digits or words."""
    if reply is None:
        return Extraction(None, "no answer given")
    if (numeric := _numeric(reply, "number")) is not None:
        return numeric
    text = str(reply)
    found = _quantities(text)
    counts = list(dict.fromkeys(q.value for q in found if q.kind in ("bare", "counted")))
    if len(counts) == 1:
        return Extraction(counts[0], "digits")
    if len(counts) > 1:
        return Extraction(None, "several different numbers")
    if _NONE.match(text):
        return Extraction(Decimal(0), "none")
    if found:
        measures = [q for q in found if q.kind == "measure"]
        if measures:
            return _measure_refusal(measures, "a count")
        return Extraction(None, "a time, not a count")
    words = _words_to_number(re.sub(r"\b(objects?|items?|of them|in total|total)\b", " ", text, flags=re.I))
    if words is not None:
        return Extraction(words, "number words")
    return Extraction(None, "no number found")


def extract_seconds(reply: Any) -> Extraction:
    """A time in the video, in seconds: a clock time, a number with a time unit, or a bare number."""
    if reply is None:
        return Extraction(None, "no answer given")
    if (numeric := _numeric(reply, "seconds")) is not None:
        return numeric
    text = str(reply)
    found = _quantities(text)
    times = list(dict.fromkeys(q.value for q in found if q.kind in ("clock", "time")))
    bare = list(dict.fromkeys(q.value for q in found if q.kind == "bare"))
    if len(times) > 1 or (times and any(b != times[0] for b in bare)):
        return Extraction(None, "several times")
    if times:
        kind = next(q for q in found if q.kind in ("clock", "time"))
        return Extraction(times[0], "clock time" if kind.kind == "clock" else f"time in {kind.unit}")
    if len(bare) == 1:
        return Extraction(bare[0], "seconds")
    if len(bare) > 1:
        return Extraction(None, "several times")
    measures = [q for q in found if q.kind == "measure"]
    if measures:
        return _measure_refusal(measures, "a time")
    if found:
        return Extraction(None, "a count of something, not a time")
    match = re.fullmatch(r"(?P<words>.+?)\s*(?P<unit>seconds?|minutes?|hours?)?[.!]?", text.strip(), re.I)
    words = _words_to_number(match.group("words")) if match else None
    if words is not None:
        unit = (match.group("unit") or "s").lower() if match else "s"
        factor = _TIME_FACTORS.get(unit, Decimal(1))
        return Extraction(words * factor, "number words")
    return Extraction(None, "no time found")
