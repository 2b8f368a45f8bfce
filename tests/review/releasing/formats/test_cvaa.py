"""Both variants of every item, read by the libraries that consume each export: `datasets` for the
Parquet splits, VLMEvalKit's TSV reading for the plain and the with-CVAA files, JSON for the rest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotator.models import Scene
from review.releasing.formats import tsv
from review.releasing.services import release_build
from tests.factories import KeyframeFactory, KeyframePlacementFactory

from .conftest import release_records, release_root
from .test_tsv import vlmevalkit_load

pytestmark = pytest.mark.django_db


@pytest.fixture
def placed_release(built_release, admin):  # type: ignore[no-untyped-def]
    """The formats' release again as 1.1, with Saro's keyframes placed (its items then have a prior;
    Kraklanda's have none)."""
    scene = Scene.objects.get(name="Saro roundabout")
    image = scene.satellite_images.get()
    for i in range(5):
        keyframe = KeyframeFactory(video=scene.video, index=i, time_s=0.5 * i)
        KeyframePlacementFactory(keyframe=keyframe, satellite_image=image, confidence=0.4 if i == 2 else 0.9)
    return release_build(version="1.1", user=admin, balance_yes_no=False)


def test_load_dataset_gives_both_questions_and_the_prior(placed_release, tmp_path: Path, monkeypatch) -> None:
    from datasets import load_dataset

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    ds = load_dataset(str(release_root(placed_release)), cache_dir=str(tmp_path / "hf-cache"))
    records = {r["id"]: r for r in release_records(placed_release)}
    statuses = set()
    for split in ("test", "train"):
        for row in ds[split]:
            record = records[row["id"]]
            assert row["question"] == record["question"]
            assert row["question_cvaa"] == record["cvaa"]["question"]
            assert row["question_cvaa"].startswith(record["question"] + "\nCVAA alignment prior")
            assert row["cvaa_status"] == record["cvaa"]["status"]
            assert json.loads(row["cvaa"]) == record["cvaa"]
            statuses.add(row["cvaa_status"])
    # items with a prior and items without one are both in the release
    assert "none" in statuses and statuses - {"none"}


def test_vlmevalkit_reads_a_plain_and_a_with_cvaa_file(placed_release) -> None:
    records = {r["id"]: r for r in release_records(placed_release)}
    folder = release_root(placed_release) / "vlmevalkit"
    for stem in ("skymark-1.1", "skymark-1.1-tiny"):
        plain, cvaa = vlmevalkit_load(folder / f"{stem}.tsv"), vlmevalkit_load(folder / f"{stem}-cvaa.tsv")
        # the same rows, images and keys; only the question differs
        assert list(plain["index"]) == list(cvaa["index"]) and list(plain["image"]) == list(cvaa["image"])
        assert list(plain["answer"].astype(str)) == list(cvaa["answer"].astype(str))
        for (_, p), (_, c) in zip(plain.iterrows(), cvaa.iterrows(), strict=True):
            record = records[p["id"]]
            assert p["question"] == tsv.neutralise(" ".join(record["question"].split()))
            assert c["question"] == tsv.neutralise(" ".join(record["cvaa"]["question"].split()))
    assert any(records[i]["cvaa"]["status"] != "none" for i in records)


def test_circular_rotations_keep_the_items_with_cvaa_question(placed_release) -> None:
    records = {r["id"]: r for r in release_records(placed_release)}
    path = release_root(placed_release) / "variants" / "circular.jsonl"
    rotations = [json.loads(line) for line in path.read_text().splitlines()]
    assert rotations
    for row in rotations:
        assert row["question_cvaa"] == records[row["circular_of"]]["cvaa"]["question"]
