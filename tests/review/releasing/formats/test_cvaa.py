"""Both variants of every item, read by the libraries that consume each export: `datasets` for the
Parquet splits, VLMEvalKit's TSV reading (a `question_cvaa` column beside `question`), JSON for the rest."""

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
            statuses.add(row["cvaa_status"])
    # items with a prior and items without one are both in the release
    assert "none" in statuses and statuses - {"none"}


def test_vlmevalkit_reads_both_questions_and_runs_the_variant_by_swapping_one_column(placed_release) -> None:
    records = {r["id"]: r for r in release_records(placed_release)}
    folder = release_root(placed_release) / "vlmevalkit"
    for name in ("skymark-1.1.tsv", "skymark-1.1-tiny.tsv"):
        data = vlmevalkit_load(folder / name)
        for _, line in data.iterrows():
            record = records[line["id"]]
            assert line["question"] == tsv.neutralise(" ".join(record["question"].split()))
            assert line["question_cvaa"] == tsv.neutralise(" ".join(record["cvaa"]["question"].split()))
        # the with-CVAA run, as docs/releases.md says: the prompt column swapped, nothing else
        data["question"] = data["question_cvaa"]
        assert all("CVAA alignment prior" in q for q in data["question"])
    assert any(records[i]["cvaa"]["status"] != "none" for i in records)


def test_circular_rotations_take_their_originals_with_cvaa_question(placed_release) -> None:
    questions = {q["id"]: q for q in release_records_named(placed_release, "questions.jsonl")}
    rotations = release_records_named(placed_release, "variants/circular.jsonl")
    assert rotations
    for row in rotations:
        # the same question and picture frame as the original; only the options move
        assert row["question"] == questions[row["circular_of"]]["question"]
        assert "question_cvaa" in questions[row["circular_of"]]


def release_records_named(release, name: str) -> list[dict]:  # type: ignore[no-untyped-def]
    path = release_root(release) / name
    return [json.loads(line) for line in path.read_text().splitlines()]
