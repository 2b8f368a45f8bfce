"""Reading a predictions file: JSONL ({"id", "answer"} per line) or TSV (a header with an id
column, `id` or `index`, and an answer column, `prediction` or `answer`). A VLMEvalKit result file
has both `answer` (the key, copied from the benchmark TSV) and `prediction` (the model's reply):
the model's column is read, never the key. Its `index` is the number of the release's item id.

Problems that make the file unusable stop with a message naming the line; problems with single
records (a duplicate id, an id the release does not have) are reported beside the score, so one
stray line does not cost a whole evaluation run.

Variants: a release asks every item plain (`question`) and with the CVAA alignment prior
(`question_cvaa`). A prediction answering the latter says so with `"variant": "cvaa"` (a `variant`
column in a TSV); no variant, or "plain", is an answer to the plain question. Answers to both may
share one file (the same id once per variant), or come as two files (`manage.py score --cvaa`)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

ID_COLUMNS = ("id", "index")
ANSWER_COLUMNS = ("prediction", "answer")
PLAIN, CVAA = "plain", "cvaa"
VARIANTS = (PLAIN, CVAA)


class PredictionError(ValueError):
    """A predictions file cannot be scored; the message names the line."""


@dataclass
class Predictions:
    answers: dict[str, Any]
    duplicates: list[str] = field(default_factory=list)  # ids given more than once (the first counts)
    unknown: list[str] = field(default_factory=list)  # ids the release does not have (ignored)


def load_jsonl(lines: Iterable[str], what: str) -> list[dict[str, Any]]:
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise PredictionError(f"{what} line {number}: not JSON ({exc.msg})") from None
        if not isinstance(record, dict):
            raise PredictionError(f"{what} line {number}: expected an object")
        records.append(record)
    return records


def load_tsv(text: str) -> list[dict[str, Any]]:
    reader = csv.DictReader(io.StringIO(text), delimiter="\t")
    header = [h.strip().lower() for h in reader.fieldnames or []]
    id_col = next((c for c in ID_COLUMNS if c in header), None)
    answer_col = next((c for c in ANSWER_COLUMNS if c in header), None)
    if id_col is None or answer_col is None:
        raise PredictionError(
            f"TSV header needs an id column ({' or '.join(ID_COLUMNS)}) and an answer column "
            f"({' or '.join(ANSWER_COLUMNS)}); it has: {', '.join(header) or 'nothing'}"
        )
    records = []
    for row in reader:
        row = {k.strip().lower(): v for k, v in row.items() if k}
        record = {"id": row[id_col], "answer": row[answer_col]}
        if row.get("variant"):
            record["variant"] = row["variant"]
        records.append(record)
    return records


def by_variant(records: list[dict[str, Any]], *, default: str = PLAIN) -> dict[str, list[dict[str, Any]]]:
    """The records of each variant (a record without one is `default`'s). Raises PredictionError
    naming the first record with a variant the release does not have."""
    out: dict[str, list[dict[str, Any]]] = {v: [] for v in VARIANTS}
    for number, record in enumerate(records, 1):
        variant = str(record.get("variant") or default).strip().lower()
        if variant not in out:
            raise PredictionError(
                f"prediction {number}: variant {record.get('variant')!r} is not one of {', '.join(VARIANTS)}"
            )
        out[variant].append(record)
    return out


def load_predictions(text: str, *, name: str) -> list[dict[str, Any]]:
    """Records from a file's text; TSV when the name says so, else JSONL."""
    if name.lower().endswith((".tsv", ".tab")):
        return load_tsv(text)
    return load_jsonl(text.splitlines(), "predictions")


def predictions_by_id(records: list[dict[str, Any]], known_ids: Iterable[str]) -> Predictions:
    """Answers keyed by item id; the first of duplicated ids counts, unknown ids are set aside."""
    known = set(known_ids)
    # The release's TSV numbers each item by its id's number (skm-000123 -> 123).
    by_index = {str(int(k.rsplit("-", 1)[-1])): k for k in known if k.rsplit("-", 1)[-1].isdigit()}
    out = Predictions(answers={})
    for number, record in enumerate(records, 1):
        if "id" not in record or "answer" not in record:
            raise PredictionError(f"prediction {number}: needs 'id' and 'answer'")
        key = str(record["id"]).strip()
        key = key if key in known else by_index.get(key, key)
        if key not in known:
            out.unknown.append(key)
        elif key in out.answers:
            out.duplicates.append(key)
        else:
            out.answers[key] = record["answer"]
    return out
