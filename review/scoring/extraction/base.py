"""What an extraction is: the value a reply answers and the rule that read it."""

from __future__ import annotations

import re
from dataclasses import dataclass
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
