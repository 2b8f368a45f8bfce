"""Training elsewhere: `train_cvaa --export` writes what a run here would train on, a checkpoint trained
on it comes back with `--import-trained`, calibrated on the held-out scene and kept as trained; a split
that has changed since, or a file not trained on a bundle, is refused and nothing is kept."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotator.models import CvaaCheckpoint, CvaaTraining, Keyframe, MediaJob
from media_tools.cvaa import load_checkpoint
from media_tools.cvaa.bundle import bundle_read
from media_tools.cvaa.bundle import main as bundle_train
from tests.annotator.processing.cvaa.conftest import CROPS
from tests.annotator.processing.cvaa.test_training import _second_scene
from tests.factories import KeyframePlacementFactory, SceneFactory

pytestmark = pytest.mark.django_db


def _command(*args: str) -> str:
    out = io.StringIO()
    call_command("train_cvaa", "--preset=tiny", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.fixture
def two_scenes(rotterdam_scene, rotterdam, annotator):  # type: ignore[no-untyped-def]
    image = rotterdam_scene.satellite_images.get()
    for kf in Keyframe.objects.filter(video=rotterdam_scene.video).order_by("index"):
        KeyframePlacementFactory(keyframe=kf, satellite_image=image, box=CROPS[kf.index], confidence=0.9)
    return rotterdam_scene, _second_scene(rotterdam, annotator)


def test_a_set_exported_trained_elsewhere_and_imported_is_calibrated_and_kept(two_scenes, tmp_path: Path) -> None:
    # when the training set is exported
    _command("--export", str(tmp_path / "set"), "--seed=5")

    # then it holds the held-out scene's pairs only as validation, and its image not at all
    bundle = bundle_read(tmp_path / "set")
    split = bundle.meta["split"]
    (train_image,) = split["train_images"]
    assert set(bundle.images) == {str(train_image)} and bundle.seed == 5
    assert [(s.kind, s.image, len(s.pairs)) for s in bundle.sources] == [
        ("synthetic", str(train_image), 0),
        ("real", str(train_image), 4),
    ]
    assert sum(s.weight for s in bundle.sources) == pytest.approx(1.0)
    assert len(bundle.val[0]) == 128 + 4  # self-supervised pairs of training images + the held-out scene's 4
    assert bundle.meta["pairs"]["held_out"] == {"placement:matching": 4}
    assert not CvaaTraining.objects.exists() and not CvaaCheckpoint.objects.exists()

    # when a machine with torch alone trains on it, and the file comes back
    bundle_train([str(tmp_path / "set"), "--device", "cpu", "--steps", "8", "--out", str(tmp_path / "cvaa.pt")])
    out = _command("--import-trained", str(tmp_path / "cvaa.pt"))

    # then it is calibrated on the held-out scene, kept as trained, active, and its run says where it trained
    checkpoint = CvaaCheckpoint.objects.get()
    metrics = checkpoint.metrics
    assert (checkpoint.origin, checkpoint.active) == ("trained", True)
    assert metrics["trained_from"] == "bundle" and metrics["split"] == split and metrics["steps"] == 8
    assert metrics["calibration_pairs"] == {"real": 4, "self-supervised": 0}
    assert load_checkpoint(checkpoint.file.read()).meta["calibration"] == metrics["calibration"]
    run = CvaaTraining.objects.get()
    assert (run.state, run.steps, run.seed, run.checkpoint_id) == ("succeeded", 8, 5, checkpoint.id)
    assert run.options["trained_elsewhere"] and run.detail.startswith("trained elsewhere on ")
    assert f"checkpoint {checkpoint.id}" in out and "queued 2 scene preview job" in out
    assert MediaJob.objects.filter(kind="cvaa", state="pending").count() == 2
    # and the same file again is named, not kept twice
    with pytest.raises(CommandError, match=f"already checkpoint {checkpoint.id}"):
        _command("--import-trained", str(tmp_path / "cvaa.pt"))
    assert CvaaTraining.objects.count() == 1


def test_an_import_after_the_scenes_changed_or_of_another_file_keeps_nothing(
    two_scenes, tmp_path: Path, tiny_bytes: bytes
) -> None:
    _command("--export", str(tmp_path / "set"))
    bundle_train([str(tmp_path / "set"), "--device", "cpu", "--steps", "3", "--out", str(tmp_path / "cvaa.pt")])
    files = sorted(p.name for p in Path(tmp_path).iterdir())

    # a checkpoint trained here (no bundle, no recorded split) is refused
    (tmp_path / "plain.pt").write_bytes(tiny_bytes)
    with pytest.raises(CommandError, match="not trained on an exported bundle"):
        _command("--import-trained", str(tmp_path / "plain.pt"))
    with pytest.raises(CommandError, match=r"--import-trained: .*No such file"):
        _command("--import-trained", str(tmp_path / "missing.pt"))
    with pytest.raises(CommandError, match="not both"):
        _command("--import-trained", str(tmp_path / "cvaa.pt"), "--export", str(tmp_path / "again"))

    # a scene added since the export changes the split: calibrating then could use a trained-on scene
    rotterdam_scene, _ = two_scenes
    SceneFactory(satellite_images=[rotterdam_scene.satellite_images.get()])
    with pytest.raises(CommandError, match=r"splits its scenes as .* the bundle was split as"):
        _command("--import-trained", str(tmp_path / "cvaa.pt"))

    assert not CvaaCheckpoint.objects.exists() and not CvaaTraining.objects.exists()
    assert sorted(p.name for p in Path(tmp_path).iterdir()) == sorted([*files, "plain.pt"])
    assert json.loads((tmp_path / "set" / "bundle.json").read_text())["version"] == 1
