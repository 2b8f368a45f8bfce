"""Variants a model builder can ask for:

- circular: every item with options again in each rotation of them (`<id>#r<k>`, `circular_of`
  names the original, `rotation` is k). An item counts right under circular evaluation only when
  every rotation is answered right, which removes the credit a position bias earns by luck. When
  the options are letters naming candidates drawn on the image, a rotation letters the candidates
  anew and shows images drawn with its own letters (`media/items/<id>/r<k>/`, drawn by the build),
  so the letter a model reads on the picture is the letter of the option it means.
- no_visual: question and options only, no media, to measure how much is answerable blind.

no_visual rows carry `question_cvaa` too, the item's "with CVAA" question (alignment.py): it measures
whether the prior's text alone makes an item answerable. Circular rows do not: a rotation changes the
options, not the question or the picture's frame, so its with-CVAA question is its original's
(`circular_of` in questions.jsonl); repeating it in every rotation made the file half as large again.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from annotator.compiling.balance import rotation_order

from .. import drawing
from ..ordering import reorder_record
from ..shelf import relocate_media
from . import write_jsonl
from .canonical import question_cvaa

CIRCULAR_FIELDS = (
    *("id", "circular_of", "rotation", "task", "dimension", "question", "options", "answer"),
    *("answer_format", "scene", "media"),
)


def rotated(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The record in each rotation k >= 1 of its options, whole (provenance included, lettered
    candidates lettered anew), with the media a model is shown in that rotation."""
    options = list(record["options"])
    if record["answer_format"] not in ("multiple_choice", "yes_no") or len(options) < 2:
        return []
    out = []
    for k in range(1, len(options)):
        variant = reorder_record(record, rotation_order(len(options), k))
        variant.update(id=f"{record['id']}#r{k}", circular_of=record["id"], rotation=k)
        if drawing.is_lettered(variant):
            variant["media"] = {
                **record["media"],
                **drawing.lettered_paths(variant, drawing.item_folder(record["id"], k)),
            }
        out.append(variant)
    return out


def rotations(record: dict[str, Any], media_path: Callable[[str], str] = str) -> list[dict[str, Any]]:
    """The rows of circular.jsonl for one record; `media_path` maps the names of drawn files to
    where the release placed them."""
    rows = [{k: v[k] for k in CIRCULAR_FIELDS} for v in rotated(record)]
    if not drawing.is_lettered(record):
        return rows  # the record's own media, placed already
    return [{**row, "media": relocate_media(row["media"], media_path)} for row in rows]


def no_visual(record: dict[str, Any]) -> dict[str, Any]:
    keep = ("id", "task", "dimension", "question", "options", "answer", "answer_format")
    return {**{k: record[k] for k in keep}, "question_cvaa": question_cvaa(record)}


def write(root: Path, records: list[dict[str, Any]], media_path: Callable[[str], str] = str) -> list[Path]:
    return [
        write_jsonl(root / "variants" / "circular.jsonl", [v for r in records for v in rotations(r, media_path)]),
        write_jsonl(root / "variants" / "no_visual.jsonl", [no_visual(r) for r in records]),
    ]
