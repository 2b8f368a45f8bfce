"""VLMEvalKit's TSV: one row per item, read the way VLMEvalKit reads it (`pandas.read_csv(path,
sep="\\t")`, then `ImageBaseDataset`'s image map and `decode_base64_to_image`).

Its contract, followed column by column:
- `index`: a unique integer per row. We use the item's number (`skm-000123` -> 123), stable across
  releases; `id` carries the item id itself, so a prediction file that keeps it is scored by id.
- `image`: base64 JPEG (a stored RGB JPEG's own bytes, other pictures encoded at JPEG_QUALITY;
  VLMEvalKit decodes it with PIL and converts to RGB), or, for several images (the marked
  satellite view first, then one image per lettered option), a Python list literal of
  base64 strings, which its `toliststr` evaluates. A value of 64 characters or fewer is read as the
  `index` of another row holding the same image(s): we write that for rows repeating an earlier
  row's images, which keeps the file small when many items share one picture. A path would be
  taken for such a reference and fail its assertion, so no path ever goes in `image`.
- `question`, option columns `A`..`H` (empty past the item's options), `answer` (the option letter
  for multiple choice, the value for counts and times), `category` (the task), `l2-category` (the
  dimension), `question_type`; `video` is the clip's path inside the release.

`question_cvaa`: the item's "with CVAA" question (alignment.py). A column of the same rows rather than
a second file: a second file would repeat every row's images (the bulk of the file, for a release of
real model views gigabytes), while a run of the variant needs only `data["question"] =
data["question_cvaa"]` before VLMEvalKit builds its prompts (docs/releases.md).

Cells that a spreadsheet would run as a formula (starting with =, +, -, @, a tab or a carriage
return, like `=HYPERLINK(...)`) get a leading apostrophe (OWASP's neutralisation), except plain
numbers such as a negative value."""

from __future__ import annotations

import base64
import csv
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .canonical import question_cvaa

LETTERS = "ABCDEFGH"
COLUMNS = [
    "index",
    "id",
    "video",
    "image",
    "question",
    *LETTERS,
    "question_cvaa",
    "answer",
    "category",
    "l2-category",
    "question_type",
]
JPEG_QUALITY = 95
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")

ReadMedia = Callable[[str], bytes]


def neutralise(cell: str) -> str:
    """A cell a spreadsheet would evaluate, made inert with a leading apostrophe."""
    if cell.startswith(FORMULA_START) and not NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def _clean(value: Any) -> str:
    # Tabs and newlines would break the one-row-per-item layout that TSV readers expect.
    return neutralise(" ".join(str(value).split()))


def item_index(uid: str) -> int:
    """The integer `index` of an item: the number in its id (`skm-000123` -> 123)."""
    return int(uid.rsplit("-", 1)[-1])


def jpeg_base64(data: bytes) -> str:
    """An image file's bytes as base64 JPEG, the way VLMEvalKit's encode_image_to_base64 makes them
    (RGB, no resizing). An RGB JPEG (every model view and option image) goes in as it is stored:
    encoding it again would cost a decode and an encode per picture, lose quality a second time
    and make it larger, for pixels VLMEvalKit decodes the same way."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:  # reads the header only
        if image.format == "JPEG" and image.mode == "RGB":
            return base64.b64encode(data).decode("ascii")
        rgb = image.convert("RGB")
    buffer = io.BytesIO()
    rgb.save(buffer, format="JPEG", quality=JPEG_QUALITY)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def image_paths(record: dict[str, Any]) -> tuple[str, ...]:
    """The pictures a model is shown for an item: the view(s), then the option images by letter."""
    options = sorted(record["media"].get("option_images", []), key=lambda o: o["option"])
    return (*record["media"]["images"], *(o["image"] for o in options))


def _image_cell(paths: tuple[str, ...], read_media: ReadMedia) -> str:
    encoded = [jpeg_base64(read_media(p)) for p in paths]
    return encoded[0] if len(encoded) == 1 else repr(encoded)


def row(record: dict[str, Any], image: str) -> list[str]:
    options = [str(o) for o in record["options"]]
    answer = str(record["answer"])
    if options and answer in options:
        answer = LETTERS[options.index(answer)]
    cells = [
        record["id"],
        record["media"]["video"],
        record["question"],
        *(options[k] if k < len(options) else "" for k in range(len(LETTERS))),
        question_cvaa(record),
        answer,
        record["task"],
        record["dimension"],
        record["answer_format"],
    ]
    clean = [_clean(c) for c in cells]
    return [str(item_index(record["id"])), clean[0], clean[1], image, *clean[2:]]


def write(path: Path, records: list[dict[str, Any]], read_media: ReadMedia) -> Path:
    """Write the TSV row by row (images are encoded one row at a time, never all held at once).
    `read_media`: a path inside the release -> that file's bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    first_with: dict[tuple[str, ...], int] = {}
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        writer.writerow(COLUMNS)
        for record in records:
            if len(record["options"]) > len(LETTERS):
                raise ValueError(f"{record['id']}: more than {len(LETTERS)} options do not fit the TSV columns")
            paths = image_paths(record)
            if not paths:
                raise ValueError(f"{record['id']}: no image to show; VLMEvalKit needs one per row")
            if paths in first_with:
                image = str(first_with[paths])
            else:
                image = _image_cell(paths, read_media)
                first_with[paths] = item_index(record["id"])
            writer.writerow(row(record, image))
    return path
