"""Answer extraction: what a model's free-text reply answers, decided by fixed rules that never guess.

Deterministic and logged per item: every extraction says which rule matched (or why none did), so
a score can be audited line by line. There is never a random fallback (VLMEvalKit picks a random
option when its parser fails, which makes scores irreproducible and pulls weak models towards
chance); a reply no rule can read, or one that answers two ways, counts wrong and is listed as
unreadable with the reason.

Multiple choice (options are the item's option texts; letters A, B, ... by position):
  1. the whole reply is a letter, alone or dressed: "B", "(B)", "B.", "B)", "[B]", "Option B";
  2. the reply is exactly an option's text (case, spaces and a final full stop ignored);
  3. stated answers, "The answer is B", "Answer: (C) east", "answer is north", a leading letter,
     "B. north-east", "(B) north-east", or a letter alone on the first line, and a letter given as
     the answer, "(C)", "I'd pick option A", "so it's D.": every one the reply holds is read, and
     when they name different options the reply is contradictory ("option A is wrong" is a
     mention, not an answer, and is not read);
  4. exactly one option's text appears in the reply as whole words (two or more: unreadable);
     letter options are never looked for as words ("a" is an article).
Yes/no items (options "yes" and "no") read, after rules 1-2 and the letters of rule 3: yes, no,
true, false opening a sentence ("No, it is hidden.", "Well, yes.") or stated ("The answer is no"),
and y / n only as the whole reply. An opening "no" or "yes" counts only when what follows it ends
the clause (punctuation or the end) or starts one ("No it isn't", "Yes there is"): "No doubt, it is
visible", "No question", "No one ..." are idioms, not answers. A yes and a no both stated ("No.
Actually, yes.", "yes and no") are contradictory. A "no" inside a sentence is never read.
Numbers (counts) read digits (a sign, decimals, thousands separators), or number words up to the
millions when they are the whole reply ("twenty-one", "about ten"; "a dozen" is not read); a reply
opening with "none" or "(there are) no cars" is 0 ("no idea", "no doubt" are not). A
number tied to a unit of measure or time (12 m, 40 %, 30 px, 12 s, 2 minutes) or to a frame
("frame 12") is not a count; the reply's one count, bare or of objects ("7 cars"), is read, and
two different ones are ambiguous.
Timestamps read mm:ss / hh:mm:ss (with decimals), seconds ("12.5", "12.5 s", "12.5 seconds"), and
minutes, hours and milliseconds converted when the unit is spelled (2 min, 1 minute 5 seconds,
1.5 minutes, 800 ms); a bare number is seconds. A number of frames, metres ("m" is metres, never
minutes), pixels or a percentage is not a time; a range or two different times are ambiguous.
Numbers are read as decimals (Decimal), so the metrics compare them exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

LETTERS = "ABCDEFGH"


@dataclass(frozen=True)
class Extraction:
    """What a reply answers: `value` (an option text, a Decimal, or None) and the rule that read it."""

    value: Any
    rule: str

    @property
    def parsed(self) -> bool:
        return self.value is not None


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().lower()).rstrip(".").strip()


# ---- multiple choice ----------------------------------------------------------------------------

_LETTER_ALONE = re.compile(r"^(?:option\s+)?[\(\[]?([a-h])[\)\]]?[.:)]?$", re.I)
_STATED = re.compile(
    r"(?:final\s+|correct\s+)?answer\s*(?:is|would be|:|=)\s*(?:option\s+)?(.+?)(?=[.;!?](?:\s|$)|\n|$)", re.I
)
_LEADING_LETTER = re.compile(r"^[\(\[]?([a-h])[\)\].:]\s+(.+)$", re.I | re.S)
# A letter given as the answer anywhere: "(C)", "[C]", "I'd pick option A", "so it's C." (a capital
# closing the clause, so the article in "it is A car" is not one). A mention such as "option A is
# wrong" is not an answer and is not read.
_LETTER_REF = re.compile(
    r"[\(\[]([A-H])[\)\]]"
    r"|\b(?:choose|pick|select|go with)\s+(?:[Oo]ption\s+)?\(?([A-H])\)?(?![\w'])"
    r"|\b(?:[Ii]t's|[Ii]t is)\s+(?:[Oo]ption\s+)?([A-H])(?=[.!?,;)]|\s*$)"
)
# A stated answer that starts with a capital letter and goes on: "The answer is B, not A".
_INNER_LETTER = re.compile(r"^(?:[Oo]ption\s+)?[\(\[]?([A-H])(?![\w'])")


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


def _named(text: str, options: list[str]) -> list[str]:
    """The options whose text stands in `text` as whole words ("east" is not found inside
    "north-east": a hyphen joins words). Letter options (A-D drawn on the image) are never looked
    for as words: "a" is an article."""
    reply = f" {_norm(text)} "
    words = [o for o in options if not re.fullmatch(r"[a-h]", _norm(o))]
    return [o for o in words if re.search(r"(?<![\w-])" + re.escape(_norm(o)) + r"(?![\w-])", reply)]


def _stated_value(inner: str, options: list[str]) -> tuple[str, str] | None:
    if (value := _letter(inner, options)) is not None:
        return value, "stated letter"
    if (lead := _LEADING_LETTER.match(inner)) and (value := _letter(lead.group(1), options)) is not None:
        return value, "stated letter"
    if (start := _INNER_LETTER.match(inner)) and (value := _letter(start.group(1), options)) is not None:
        return value, "stated letter"
    if (value := _by_text(inner, options)) is not None:
        return value, "stated option text"
    if len(named := _named(inner, options)) == 1:
        return named[0], "stated option text"
    return None


def _stated(text: str, options: list[str]) -> list[tuple[str, str]]:
    """(option, rule) of every answer the reply states, names by letter or opens with."""
    found = []
    # "B. north-east" or "(B) because ...", or "B" alone on the first line
    lead = _LEADING_LETTER.match(text.strip())
    if (value := _letter(lead.group(1) if lead else text.strip().splitlines()[0], options)) is not None:
        found.append((value, "leading letter"))
    found += [v for m in _STATED.finditer(text) if (v := _stated_value(m.group(1).strip(), options)) is not None]
    for match in _LETTER_REF.finditer(text):
        letter = next(g for g in match.groups() if g)
        if (value := _letter(letter, options)) is not None:
            found.append((value, "stated letter"))
    return found


def _one(found: list[tuple[str, str]], what: str) -> Extraction:
    values = list(dict.fromkeys(v for v, _ in found))
    if len(values) == 1:
        return Extraction(values[0], found[0][1])
    return Extraction(None, f"contradictory {what}: " + " and ".join(repr(v) for v in values))


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
    if {_norm(o) for o in options} == {"yes", "no"}:
        return _yes_no(text, options)
    if found := _stated(text, options):
        return _one(found, "answers")
    named = _named(text, options)
    if len(named) == 1:
        return Extraction(named[0], "option text in the reply")
    if named:
        return Extraction(None, "several options named: " + ", ".join(repr(o) for o in named))
    return Extraction(None, "no option, letter or option text found")


# ---- yes / no -----------------------------------------------------------------------------------

_POLAR = {"yes": "yes", "true": "yes", "no": "no", "false": "no"}
_FILLERS = re.compile(
    r"^(?:(?:well|so|hmm+|ok|okay|oh|actually|wait|then|therefore|thus|hence|overall|in short|in conclusion|"
    r"i think|i believe|i would say|i'd say|my answer is|final answer|answer)\s*[,:]?\s+)+",
    re.I,
)
# After an opening yes/no, these start a clause, so the word was the answer ("No it isn't").
_CLAUSE_STARTS = {"it", "it's", "its", "the", "there", "there's", "this", "that", "they", "i", "we", "he", "she"}
_WORD = re.compile(r"[a-z']+")


def _opening_polar(sentence: str) -> str | None:
    """yes / no when the sentence opens with one used as an answer, not as part of an idiom."""
    clause = _FILLERS.sub("", sentence.strip().lstrip("*_\"'([ ").lower())
    match = re.match(r"(yes|no|true|false)\b(.*)$", clause, re.S)
    if not match:
        return None
    rest = match.group(2)
    follower = _WORD.match(rest.strip())
    if rest.strip() == "" or re.match(r"\s*[,.;:!?)\-–—*]", rest) or (follower and follower.group(0) in _CLAUSE_STARTS):
        return _POLAR[match.group(1)]
    return None


def _yes_no(text: str, options: list[str]) -> Extraction:
    by_word = {_norm(o): o for o in options}
    if _norm(text).strip("!") in ("y", "n"):
        return Extraction(by_word["yes" if _norm(text).startswith("y") else "no"], "yes/no word")
    if re.match(r"^\W*(yes|no)\s+(and|or)\s+(yes|no)\b", text, re.I):
        return Extraction(None, "contradictory answers: 'yes' and 'no'")
    found: list[tuple[str, str]] = []
    for match in _STATED.finditer(text):
        inner = match.group(1).strip()
        value = _letter(inner, options) or (by_word.get(word) if (word := _opening_polar(inner)) else None)
        if value is not None:
            found.append((value, "stated answer"))
    for sentence in re.split(r"(?<=[.;!?])\s+|\n+", text):
        if (word := _opening_polar(sentence)) is not None:
            found.append((by_word[word], "yes/no word"))
    lead = _LEADING_LETTER.match(text)
    if lead and (value := _letter(lead.group(1), options)) is not None:
        found.append((value, "leading letter"))
    if found:
        return _one(found, "answers")
    if re.match(r"^\W*no\s+(doubt|question|wonder|matter|problem|one|longer|way|idea|sign)\b", text, re.I):
        return Extraction(None, "an idiom ('no doubt', 'no question' ...), not an answer")
    return Extraction(None, "no yes or no found")


# ---- numbers and times --------------------------------------------------------------------------

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


def extract(item: dict[str, Any], reply: Any) -> Extraction:
    """Dispatch on the item's answer format."""
    fmt = item["answer_format"]
    if fmt == "number":
        return extract_number(reply)
    if fmt == "timestamp":
        return extract_seconds(reply)
    return extract_choice(reply, item.get("options") or [])
