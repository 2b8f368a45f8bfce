"""Variants a model builder can ask for:

- circular: every multiple-choice item again in each rotation of its options (`<id>#r<k>`,
  `circular_of` names the original). An item counts right under circular evaluation only when
  every rotation is answered right, which removes the credit a position bias earns by luck.
- no_visual: question and options only, no media, to measure how much is answerable blind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import write_jsonl


def rotations(record: dict[str, Any]) -> list[dict[str, Any]]:
    options = list(record["options"])
    if record["answer_format"] != "multiple_choice" or len(options) < 2:
        return []
    return [
        {
            "id": f"{record['id']}#r{k}",
            "circular_of": record["id"],
            "task": record["task"],
            "dimension": record["dimension"],
            "question": record["question"],
            "options": options[k:] + options[:k],
            "answer": record["answer"],
            "answer_format": record["answer_format"],
            "scene": record["scene"],
            "media": record["media"],
        }
        for k in range(1, len(options))
    ]


def no_visual(record: dict[str, Any]) -> dict[str, Any]:
    keep = ("id", "task", "dimension", "question", "options", "answer", "answer_format")
    return {k: record[k] for k in keep}


def write(root: Path, records: list[dict[str, Any]]) -> list[Path]:
    return [
        write_jsonl(root / "variants" / "circular.jsonl", [v for r in records for v in rotations(r)]),
        write_jsonl(root / "variants" / "no_visual.jsonl", [no_visual(r) for r in records]),
    ]
