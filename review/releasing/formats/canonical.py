"""Canonical JSONL, the questions-only file, split lists, and the release root as a Hugging Face
`datasets` folder (a dataset card whose YAML names the data files of each split).

Layout (media paths inside records are relative to the release root):
    items.jsonl              every item with its key, split, provenance and `cvaa` block
    cvaa_frames.jsonl        the placements the `cvaa` blocks name, a row per (scene, keyframe, image)
    questions.jsonl          the same items without answers, for submitting to models (both variants:
                             `question` plain, `question_cvaa` with the CVAA alignment prior)
    splits/{train,test,tiny}.txt
    data/{test,train,tiny}.parquet   rows for `datasets.load_dataset(<release root>)`
    README.md                the dataset card

The split files are Parquet with the images inside (`datasets.Image()` columns: bytes plus the
path in the release), because `Image()` opens a path relative to the working directory, not to
the dataset: JSON rows of paths decode only when run from the release folder. Parquet is what
the Hub itself serves, and the features ride in its schema metadata (key `huggingface`), so
`load_dataset` returns PIL images wherever it runs. Videos stay files: `video` is a path relative
to the release root (join it with the folder you loaded); `datasets.Video()` would need torchcodec
to decode, which a plain `datasets` install lacks.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import write_jsonl, write_text

QUESTION_FIELDS = ("id", "task", "dimension", "question", "options", "answer_format", "scene", "media")
HF_SPLITS = ("test", "train", "tiny")
# question_cvaa: the "with CVAA" variant (alignment.py); cvaa_status: placed, partial or none. The
# per-keyframe detail (box, locator, confidence, uncertainty) is in items.jsonl and cvaa_frames.jsonl.
TEXT_COLUMNS = (
    *("id", "task", "dimension", "question", "answer", "answer_format", "scene", "video"),
    *("question_cvaa", "cvaa_status"),
)
FRAMES_FILE = "cvaa_frames.jsonl"  # the with-CVAA frame table, a row per (scene, keyframe, image)
ROW_GROUP = 64  # rows per Parquet row group: a group's images are held in memory while it is written
ReadMedia = Callable[[str], bytes]


def _value(dtype: str) -> dict[str, str]:
    return {"dtype": dtype, "_type": "Value"}


# datasets' own serialisation of the features; "Sequence" reads as a list in every version.
HF_FEATURES: dict[str, Any] = {
    **{name: _value("string") for name in TEXT_COLUMNS},
    "options": {"feature": _value("string"), "_type": "Sequence"},
    "segment_s": {"feature": _value("float64"), "_type": "Sequence"},
    "images": {"feature": {"_type": "Image"}, "_type": "Sequence"},
    "option_images": {"feature": {"_type": "Image"}, "_type": "Sequence"},
    "option_image_letters": {"feature": _value("string"), "_type": "Sequence"},
}


def question_cvaa(record: dict[str, Any]) -> str:
    """The with-CVAA question of a record (records frozen before the variant existed: the plain one)."""
    return str(record["cvaa"]["question"]) if record.get("cvaa") else str(record["question"])


def questions(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**{k: r[k] for k in QUESTION_FIELDS}, "question_cvaa": question_cvaa(r)} for r in records]


def hf_row(record: dict[str, Any], read_media: ReadMedia) -> dict[str, Any]:
    """One flat row with the same columns for every task (Arrow needs one schema per split);
    options are strings, empty for numbers and times; images carry their bytes."""
    options = sorted(record["media"].get("option_images", []), key=lambda o: o["option"])
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
        "segment_s": [float(t) for t in record["media"].get("segment_s") or []],
        "images": [{"bytes": read_media(p), "path": p} for p in record["media"]["images"]],
        "option_images": [{"bytes": read_media(o["image"]), "path": o["image"]} for o in options],
        "option_image_letters": [o["option"] for o in options],
        "question_cvaa": question_cvaa(record),
        "cvaa_status": (record.get("cvaa") or {}).get("status", "none"),
    }


def _arrow_schema() -> Any:
    import pyarrow as pa

    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    fields = [
        *((name, pa.string()) for name in TEXT_COLUMNS),
        ("options", pa.list_(pa.string())),
        ("segment_s", pa.list_(pa.float64())),
        ("images", pa.list_(image)),
        ("option_images", pa.list_(image)),
        ("option_image_letters", pa.list_(pa.string())),
    ]
    metadata = {"huggingface": json.dumps({"info": {"features": HF_FEATURES}}, sort_keys=True)}
    return pa.schema(fields, metadata=metadata)


def write_parquet(path: Path, records: list[dict[str, Any]], read_media: ReadMedia) -> Path:
    """Rows of one split, a row group at a time (deterministic: no timestamps in Parquet)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = _arrow_schema()
    path.parent.mkdir(parents=True, exist_ok=True)
    with pq.ParquetWriter(path, schema) as writer:
        for start in range(0, len(records), ROW_GROUP):
            rows = [hf_row(r, read_media) for r in records[start : start + ROW_GROUP]]
            writer.write_table(pa.Table.from_pylist(rows, schema=schema))
    return path


def split_rows(records: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    if name == "tiny":
        return [r for r in records if r["tiny"]]
    return [r for r in records if r["split"] == name]


def dataset_card(
    *, version: str, counts: dict[str, int], tasks: dict[str, int], licenses: list[str], min_confidence: Any = None
) -> str:
    # An empty split has no rows to infer columns from; the card names only splits with items.
    configs = "\n".join(f"  - split: {s}\n    path: data/{s}.parquet" for s in HF_SPLITS if counts[s])
    task_lines = "\n".join(f"| {task} | {n} |" for task, n in sorted(tasks.items()))
    threshold = "the release's threshold" if min_confidence is None else min_confidence
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
row = ds["test"][0]                          # row["images"]: PIL images; row["video"]: a path inside the release
```

`items.jsonl` holds the same items with their provenance; `questions.jsonl` has no answers.

## Two variants of every question: plain and with CVAA

`question` is the item as the release asks it. `question_cvaa` is the same question followed by a CVAA alignment
prior, as LinkS2Bench serializes it: the box `[x1, y1, x2, y2]` (pixels of the satellite picture
shown, from its top-left corner) where each drone frame the item is about lies, from that keyframe's
placement on the image, frozen with this release. A frame with no placement, or one whose confidence
is under {threshold}, gets no box: the text says there is no reliable one. `cvaa_status` says whether
every frame (`placed`), some (`partial`) or none has a box. The `cvaa` block of each record in
`items.jsonl` names the satellite image (`image`), the keyframes (`keyframes`, indices) and each one's
box on the picture (`boxes`); `cvaa_frames.jsonl` has a row per keyframe of a scene on an image with
its time, the locator (`source`), its `confidence`, `uncertainty_px`, `uncertainty_m` (the expected
corner error on the ground, the map's own georeference error included where it is known; where it is not,
the error on the map alone), its box in image pixels and why a frame has no box. The VLMEvalKit TSVs
have a `question_cvaa` column beside `question` (swap them for the with-CVAA run).

To score both, submit one predictions file whose lines carry `"variant": "cvaa"` for answers to
`question_cvaa` (lines without `variant`, or with `"plain"`, answer `question`), or two files (the
second with `manage.py score RELEASE PLAIN --cvaa WITH_CVAA`); the scorer prints a plain row, a
with-CVAA row and their difference per task and overall.

## Items per task

| task | items |
|---|---|
{task_lines}

## Licenses of the source media

{chr(10).join(f"- {line}" for line in licenses) or "- not recorded"}

See `datasheet/index.html` for balance, agreement, rejection reasons, the human baseline and known limitations.
"""


def write(
    root: Path,
    *,
    version: str,
    records: list[dict[str, Any]],
    licenses: list[str],
    read_media: ReadMedia,
    cvaa: dict[str, Any] | None = None,
) -> list[Path]:
    """`read_media`: a path inside the release -> that file's bytes (images go into the Parquet).
    `cvaa`: the release's threshold and the frame table its records' with-CVAA keyframes name."""
    cvaa = cvaa or {}
    files = [
        write_jsonl(root / "items.jsonl", records),
        write_jsonl(root / "questions.jsonl", questions(records)),
        write_jsonl(root / FRAMES_FILE, cvaa.get("frames", [])),
    ]
    counts = {}
    for name in HF_SPLITS:
        rows = split_rows(records, name)
        counts[name] = len(rows)
        files.append(write_text(root / "splits" / f"{name}.txt", "".join(f"{r['id']}\n" for r in rows)))
        files.append(write_parquet(root / "data" / f"{name}.parquet", rows, read_media))
    tasks: dict[str, int] = {}
    for r in records:
        tasks[r["task"]] = tasks.get(r["task"], 0) + 1
    files.append(
        write_text(
            root / "README.md",
            dataset_card(
                version=version,
                counts=counts,
                tasks=tasks,
                licenses=licenses,
                min_confidence=cvaa.get("min_confidence"),
            ),
        )
    )
    return files
