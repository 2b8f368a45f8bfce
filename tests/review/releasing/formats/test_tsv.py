"""The VLMEvalKit TSV, read the way VLMEvalKit reads it. The loader below follows its code:
`vlmeval/smp/file.py` `load` (pandas.read_csv(sep="\\t")), `ImageBaseDataset.__init__` (a short
`image` value is the index of another row holding the image; it asserts that row exists and
holds more than 64 characters), `vlmeval/smp/misc.py` `toliststr` (a "[...]" value is a list
literal) and `vlmeval/smp/vlm.py` `decode_base64_to_image` (base64 -> PIL.Image.open -> RGB)."""

from __future__ import annotations

import base64
import io
from ast import literal_eval
from pathlib import Path
from typing import Any

import pytest

from review.releasing.formats import tsv

from .conftest import FORMULA_QUESTION, OPTION_SIZE, VIEW_SIZE, release_records, release_root

pytestmark = pytest.mark.django_db


def toliststr(s: Any) -> list[str]:
    if isinstance(s, str) and len(s) > 1 and s[0] == "[" and s[-1] == "]":
        return [str(x) for x in literal_eval(s)]  # VLMEvalKit uses eval(); the values are the same
    if isinstance(s, str):
        return [s]
    return [str(x) for x in s]


def decode_base64_to_image(base64_string: str) -> Any:
    from PIL import Image

    image = Image.open(io.BytesIO(base64.b64decode(base64_string)))
    if image.mode in ("RGBA", "P", "LA"):
        image = image.convert("RGB")
    return image


def vlmevalkit_load(path: Path) -> Any:
    """ImageBaseDataset's reading of a TSV, up to the images it hands a model."""
    import pandas as pd

    data = pd.read_csv(path, sep="\t")
    data["index"] = [str(x) for x in data["index"]]
    data["image"] = [str(x) for x in data["image"]]
    image_map = dict(zip(data["index"], data["image"], strict=True))
    for k in image_map:
        if len(image_map[k]) <= 64:
            idx = image_map[k]
            assert idx in image_map and len(image_map[idx]) > 64
            image_map[k] = image_map[idx]
    images = [toliststr(image_map[k]) for k in data["index"]]
    data["image"] = [x[0] if len(x) == 1 else x for x in images]
    return data


def test_every_row_decodes_as_vlmevalkit_decodes_it(built_release) -> None:
    records = {r["id"]: r for r in release_records(built_release)}
    for name, expected in (("skymark-1.0.tsv", len(records)), ("skymark-1.0-tiny.tsv", None)):
        data = vlmevalkit_load(release_root(built_release) / "vlmevalkit" / name)
        # unique integer index, one row per item
        indices = [int(i) for i in data["index"]]
        assert len(set(indices)) == len(indices) and (expected is None or len(indices) == expected)
        for _, line in data.iterrows():
            record = records[line["id"]]
            assert int(line["index"]) == tsv.item_index(record["id"])
            pictures = line["image"] if isinstance(line["image"], list) else [line["image"]]
            decoded = [decode_base64_to_image(b).convert("RGB") for b in pictures]
            with_options = bool(record["media"].get("option_images"))
            # the view (the scene's 200 x 100 image, or the rendered model view), then one per option
            view = VIEW_SIZE if with_options else (200, 100)
            assert decoded[0].size == view
            assert [d.size for d in decoded[1:]] == [OPTION_SIZE] * (4 if with_options else 0)
            assert all(d.mode == "RGB" for d in decoded)


def test_rows_sharing_a_picture_refer_to_the_first_by_index(built_release) -> None:
    import pandas as pd

    raw = pd.read_csv(release_root(built_release) / "vlmevalkit" / "skymark-1.0.tsv", sep="\t")
    references = raw[raw["image"].astype(str).str.len() <= 64]
    # the two Kraklanda items show the same satellite image; Saro's items share theirs too
    assert len(references) >= 1
    holders = {str(i): str(img) for i, img in zip(raw["index"], raw["image"], strict=True)}
    for _, line in references.iterrows():
        assert len(holders[str(line["image"])]) > 64
        assert int(line["image"]) < int(line["index"])  # always an earlier row


def test_answers_options_and_categories_follow_the_contract(built_release) -> None:
    import pandas as pd

    records = {r["id"]: r for r in release_records(built_release)}
    data = pd.read_csv(release_root(built_release) / "vlmevalkit" / "skymark-1.0.tsv", sep="\t", keep_default_na=False)
    assert list(data.columns) == tsv.COLUMNS
    for _, line in data.iterrows():
        record = records[line["id"]]
        options = [str(o) for o in record["options"]]
        assert line["category"] == record["task"] and line["l2-category"] == record["dimension"]
        if options:
            assert line["answer"] == "ABCDEFGH"[options.index(str(record["answer"]))]
            assert [tsv.neutralise(str(line[c])) for c in "ABCDEFGH"[: len(options)]] == [
                tsv.neutralise(o) for o in options
            ]
        else:
            assert str(line["answer"]) == str(record["answer"]) and line["A"] == ""


def test_cells_a_spreadsheet_would_run_are_neutralised(built_release) -> None:
    import pandas as pd

    data = pd.read_csv(
        release_root(built_release) / "vlmevalkit" / "skymark-1.0.tsv", sep="\t", keep_default_na=False, dtype=str
    )
    text = data.drop(columns=["image"])
    assert not any(v.startswith(("=", "+", "-", "@")) for v in text.to_numpy().ravel())
    assert "'" + FORMULA_QUESTION in set(data["question"])
    assert "'-1 @home" in set(data["B"])


@pytest.mark.parametrize(
    ("cell", "out"),
    [
        ("=HYPERLINK(1)", "'=HYPERLINK(1)"),
        ("+cmd", "'+cmd"),
        ("-1+2", "'-1+2"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("-3", "-3"),
        ("+2.5", "+2.5"),
        ("north", "north"),
        ("", ""),
    ],
)
def test_neutralise(cell: str, out: str) -> None:
    assert tsv.neutralise(cell) == out


def test_a_stored_rgb_jpeg_goes_in_as_it_is_and_other_pictures_are_encoded() -> None:
    from PIL import Image

    # given an RGB JPEG (as model views are stored) and a PNG with an alpha band
    jpeg, png = io.BytesIO(), io.BytesIO()
    Image.new("RGB", (24, 16), (10, 120, 200)).save(jpeg, format="JPEG", quality=80)
    Image.new("RGBA", (24, 16), (10, 120, 200, 90)).save(png, format="PNG")

    # when each is written into an image cell
    from_jpeg, from_png = tsv.jpeg_base64(jpeg.getvalue()), tsv.jpeg_base64(png.getvalue())

    # then the JPEG's own bytes are in the cell (not decoded and encoded again), and the PNG is an
    # RGB JPEG of the same size
    assert base64.b64decode(from_jpeg) == jpeg.getvalue()
    decoded = decode_base64_to_image(from_png)
    assert (decoded.format, decoded.mode, decoded.size) == ("JPEG", "RGB", (24, 16))
