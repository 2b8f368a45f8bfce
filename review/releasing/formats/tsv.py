"""A VLMEvalKit-style TSV: one row per item with `index, video, image, question, A..H, answer,
category, l2-category, question_type`, read back with `pandas.read_csv(path, sep="\\t")` as
VLMEvalKit does. Multiple-choice answers are the option letter (VLMEvalKit's convention); numbers
and times are the value. `image` holds the satellite image path(s), `;`-separated."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from . import write_text

LETTERS = "ABCDEFGH"
COLUMNS = ["index", "video", "image", "question", *LETTERS, "answer", "category", "l2-category", "question_type"]


def _clean(value: Any) -> str:
    # Tabs and newlines would break the one-row-per-item layout that TSV readers expect.
    return " ".join(str(value).split())


def row(record: dict[str, Any]) -> list[str]:
    options = [str(o) for o in record["options"]]
    answer = str(record["answer"])
    if options and answer in options:
        answer = LETTERS[options.index(answer)]
    cells = [
        record["id"],
        record["media"]["video"],
        ";".join(record["media"]["images"]),
        record["question"],
        *(options[k] if k < len(options) else "" for k in range(len(LETTERS))),
        answer,
        record["task"],
        record["dimension"],
        record["answer_format"],
    ]
    return [_clean(c) for c in cells]


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(COLUMNS)
    for record in records:
        if len(record["options"]) > len(LETTERS):
            raise ValueError(f"{record['id']}: more than {len(LETTERS)} options do not fit the TSV columns")
        writer.writerow(row(record))
    return write_text(path, buffer.getvalue())
