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

from typing import Any

from .base import LETTERS, Extraction
from .choice import extract_choice
from .numbers import extract_number, extract_seconds

__all__ = ["LETTERS", "Extraction", "extract", "extract_choice", "extract_number", "extract_seconds"]


def extract(item: dict[str, Any], reply: Any) -> Extraction:
    """Dispatch on the item's answer format."""
    fmt = item["answer_format"]
    if fmt == "number":
        return extract_number(reply)
    if fmt == "timestamp":
        return extract_seconds(reply)
    return extract_choice(reply, item.get("options") or [])
