"""The release folder as a Hugging Face dataset: `datasets.load_dataset(<folder>)` from another
working directory gives PIL images (bytes inside the Parquet) and video paths relative to the
folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .conftest import OPTION_SIZE, VIEW_SIZE, release_records, release_root

pytestmark = pytest.mark.django_db


def test_load_dataset_decodes_images_from_any_working_directory(built_release, tmp_path: Path, monkeypatch) -> None:
    from datasets import Image, load_dataset
    from PIL.Image import Image as PILImage

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # nowhere near the release: relative paths would not open here
    root = release_root(built_release)
    ds = load_dataset(str(root), cache_dir=str(tmp_path / "hf-cache"))

    records = {r["id"]: r for r in release_records(built_release)}
    by_split = {s: sum(r["split"] == s for r in records.values()) for s in ("test", "train")}
    assert {s: len(ds[s]) for s in ("test", "train")} == by_split and by_split["train"] > 0
    assert len(ds["tiny"]) == sum(r["tiny"] for r in records.values())
    assert ds["test"].features["images"].feature == Image()
    for split in ("test", "train", "tiny"):
        for row in ds[split]:
            record = records[row["id"]]
            assert (row["question"], row["answer"]) == (record["question"], str(record["answer"]))
            assert all(isinstance(im, PILImage) for im in row["images"] + row["option_images"])
            with_options = bool(record["media"].get("option_images"))
            assert [im.size for im in row["images"]] == [VIEW_SIZE if with_options else (200, 100)]
            assert [im.size for im in row["option_images"]] == [OPTION_SIZE] * (4 if with_options else 0)
            assert row["option_image_letters"] == (list("ABCD") if with_options else [])
            # the video is a path relative to the release folder, wherever we run
            assert not os.path.isabs(row["video"]) and (root / row["video"]).is_file()
