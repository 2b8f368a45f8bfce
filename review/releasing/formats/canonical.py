"""Canonical JSONL, the questions-only file, split lists, and the release root as a Hugging Face
`datasets` folder (a dataset card whose YAML names the data files of each split).

Layout (media paths inside records are relative to the release root):
    items.jsonl              every item with its key, split and provenance
    questions.jsonl          the same items without answers, for submitting to models
    splits/{train,test,tiny}.txt
    data/{test,train,tiny}.jsonl   flat records for `datasets.load_dataset(<release root>)`
    README.md                the dataset card
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import write_jsonl, write_text

QUESTION_FIELDS = ("id", "task", "dimension", "question", "options", "answer_format", "scene", "media")
HF_SPLITS = ("test", "train", "tiny")


def questions(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: r[k] for k in QUESTION_FIELDS} for r in records]


def hf_row(record: dict[str, Any]) -> dict[str, Any]:
    """One flat row with the same columns for every task (Arrow needs one schema per split);
    options are strings, empty for numbers and times."""
    return {
        "id": record["id"],
        "task": record["task"],
        "dimension": record["dimension"],
        "question": record["question"],
        "options": [str(o) for o in record["options"]],
        "answer": str(record["answer"]),
        "answer_format": record["answer_format"],
        "scene": record["scene"],
        "video": record["media"]["video"],
        "images": list(record["media"]["images"]),
        "option_images": [o["image"] for o in record["media"].get("option_images", [])],
    }


def split_rows(records: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    if name == "tiny":
        return [r for r in records if r["tiny"]]
    return [r for r in records if r["split"] == name]


def dataset_card(*, version: str, counts: dict[str, int], tasks: dict[str, int], licenses: list[str]) -> str:
    # An empty split has no rows to infer columns from; the card names only splits with items.
    configs = "\n".join(f"  - split: {s}\n    path: data/{s}.jsonl" for s in HF_SPLITS if counts[s])
    task_lines = "\n".join(f"| {task} | {n} |" for task, n in sorted(tasks.items()))
    split_lines = ", ".join(f"{s}: {counts[s]}" for s in HF_SPLITS)
    return f"""---
pretty_name: Skymark release {version}
task_categories:
- visual-question-answering
- video-text-to-text
configs:
- config_name: default
  data_files:
{configs}
---

# Skymark release {version}

UAV–satellite cross-view video question answering. Each item pairs a drone video with a satellite
image of the same place and asks one question of one of twelve tasks.

Splits ({split_lines}): `test` and `train` share no video and no satellite image; `tiny` is up to
60 test items per task.

## Loading

```python
from datasets import load_dataset
ds = load_dataset("path/to/this/release")   # DatasetDict with test, train, tiny
row = ds["test"][0]                          # row["video"], row["images"]: paths inside the release
```

`items.jsonl` holds the same items with their provenance; `questions.jsonl` has no answers.

## Items per task

| task | items |
|---|---|
{task_lines}

## Licenses of the source media

{chr(10).join(f"- {line}" for line in licenses) or "- not recorded"}

See `datasheet/index.html` for balance, agreement, rejection reasons, the human baseline and known limitations.
"""


def write(root: Path, *, version: str, records: list[dict[str, Any]], licenses: list[str]) -> list[Path]:
    files = [write_jsonl(root / "items.jsonl", records), write_jsonl(root / "questions.jsonl", questions(records))]
    counts = {}
    for name in HF_SPLITS:
        rows = split_rows(records, name)
        counts[name] = len(rows)
        files.append(write_text(root / "splits" / f"{name}.txt", "".join(f"{r['id']}\n" for r in rows)))
        files.append(write_jsonl(root / "data" / f"{name}.jsonl", [hf_row(r) for r in rows]))
    tasks: dict[str, int] = {}
    for r in records:
        tasks[r["task"]] = tasks.get(r["task"], 0) + 1
    files.append(
        write_text(root / "README.md", dataset_card(version=version, counts=counts, tasks=tasks, licenses=licenses))
    )
    return files
