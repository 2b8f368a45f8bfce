"""Multiple-choice and yes/no replies: a letter, an option's text, or a yes/no that opens the reply."""

from __future__ import annotations

import re
from typing import Any

from .base import LETTERS, Extraction, _norm

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
