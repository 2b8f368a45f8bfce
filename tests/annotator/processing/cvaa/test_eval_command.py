"""`eval_cvaa`: the learned model, geometry, chaining and the SIFT baseline side by side on held-out real
pairs, as tables."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db


def _eval(*args: str) -> str:
    out = io.StringIO()
    call_command("eval_cvaa", *args, stdout=out)
    return out.getvalue()


def test_the_active_model_and_sift_are_scored_on_brighton_photos(testdata: Path, active_checkpoint) -> None:
    # when the first three Brighton photos are evaluated (GPS footprints on the orthomosaic)
    out = _eval(f"--testdata={testdata}", "--sets=brighton", "--limit=3")

    # then the model (plain, gated, re-ranked by geometry), geometry alone, chance on the same windows
    # (expected and one seeded draw) and SIFT each get a row with recall@1, recall@5, mean IoU and the
    # centre error in metres and footprints, on the same 3 pairs
    assert f"model {active_checkpoint.sha256[:12]} on cpu" in out
    assert "calibration: none in this checkpoint (its boxes are gated by the significance test alone)" in out
    assert "brighton: 18 photos" in out and "map 1865x1085 at 0.09 m/px" in out
    assert "a box hits at IoU >= 0.5 with the footprint's box" in out
    assert re.search(r"424 windows; [0-3] of the 3 footprints have one at IoU >= 0.5", out)
    methods = (
        "cvaa ",
        "cvaa shown ",
        "cvaa + geometry ",
        "geometry ",
        "random (expected) ",
        "random (seed 0) ",
        "sift ",
    )
    rows = {m.strip(): line for line in out.splitlines() for m in methods if line.startswith(m) and " n=" in line}
    assert list(rows) == [m.strip() for m in methods]
    for row in rows.values():
        assert "n=3" in row and "R@1 " in row and "R@5 " in row and "mIoU " in row
        assert re.search(r"centre err (\d+\.\d m|inf m) = (\d+\.\d\d|inf) footprint", row), row
    # and feature matching on photos of the same flight finds every one (the models' bar to reach)
    assert "R@1 1.00" in rows["sift"]
    # while chance stays far below it at IoU 0.5
    assert float(rows["random (expected)"].split("R@5 ")[1].split()[0]) < 0.5
    assert re.search(r"cvaa shown: [0-3] of 3 top boxes pass the gate", out)
    # and the frames geometry alone misses are counted, with the retriever's recall@5 on them
    geometry_r1 = float(rows["geometry"].split("R@1 ")[1].split()[0])
    missed = re.search(r"where geometry alone misses \((\d) frames\): recall@5 cvaa [\d.]+, cvaa \+ geometry", out)
    assert missed is not None and int(missed[1]) == round(3 * (1 - geometry_r1))


def test_a_calibrated_checkpoint_gets_its_reliability_on_each_set(
    testdata: Path, tmp_path: Path, tiny_bytes: bytes
) -> None:
    from media_tools.cvaa import checkpoint_bytes, fit_calibration, load_checkpoint

    # given a checkpoint file whose metadata carries a calibration (as train_cvaa writes it)
    calibration = fit_calibration([0.0, 1.0, 2.0, 3.0, 4.0], [False, False, True, False, True])
    model = load_checkpoint(tiny_bytes).model
    (tmp_path / "cal.pt").write_bytes(checkpoint_bytes(model, meta={"calibration": calibration.to_dict()}))

    out = _eval(f"--checkpoint={tmp_path / 'cal.pt'}", f"--testdata={testdata}", "--sets=brighton", "--limit=2",
                "--no-baseline", "--no-geometry")  # fmt: skip

    # then the calibration is printed, and its predicted against observed hit rate on this set
    assert "calibration on 5 held-out pairs (2 top-1 hits)" in out
    assert "reliability of the checkpoint's calibration on this set (top-1 hit):" in out
    table = out.split("predicted bin  pairs  mean predicted  observed")[1].strip().splitlines()
    assert sum(int(line.split(")")[1].split()[0]) for line in table if line.strip().startswith("[")) == 2
    assert not [line for line in out.splitlines() if line.startswith(("sift ", "geometry ", "cvaa + geometry "))]


def test_geometry_only_needs_no_model_and_scores_chaining_beside_chance_and_sift(testdata: Path) -> None:
    # when the first three Brighton photos are evaluated without a learned model
    out = _eval(f"--testdata={testdata}", "--sets=brighton", "--limit=3", "--geometry-only")

    # then geometry, chaining from the first placed photo (alone and re-anchored on the map), chance and
    # the old SIFT baseline each get a row on the same 3 pairs, with the confidence's reliability
    methods = ("geometry ", "chaining ", "chaining + map ", "random (expected) ", "random (seed 0) ", "sift ")
    rows = {m.strip(): line for line in out.splitlines() for m in methods if line.startswith(m) and " n=" in line}
    assert list(rows) == [m.strip() for m in methods]
    assert all("n=3" in row for row in rows.values())
    assert "model " not in out.splitlines()[0]
    assert "reliability, geometry: hits per confidence bin" in out
    assert re.search(r"chaining: anchored on clip frame [0-2]", out)
    # and the summary counts the top-1 hits of the nadir views against the 90 % goal
    summary = re.search(r"nadir +geometry +(\d)/3 = [\d.]+ +\((meets|below) the 90% goal\)", out)
    assert summary is not None
    assert f"R@1 {int(summary[1]) / 3:.2f}" in rows["geometry"]


def test_without_a_model_or_with_an_unknown_set_it_says_what_is_wrong(testdata: Path, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no active CVAA checkpoint: train one"):
        _eval("--sets=brighton")
    with pytest.raises(CommandError, match="unknown set paris; choose from saro, brighton"):
        _eval("--sets=paris")
    (tmp_path / "bad.pt").write_bytes(b"not torch")
    with pytest.raises(CommandError, match=r"bad\.pt: not a CVAA checkpoint"):
        _eval(f"--checkpoint={tmp_path / 'bad.pt'}")


def test_a_device_this_machine_lacks_is_a_command_error(tmp_path: Path, tiny_bytes: bytes) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    (tmp_path / "tiny.pt").write_bytes(tiny_bytes)
    with pytest.raises(CommandError, match=r"^device 'cuda' is not available: .*; available here: cpu$"):
        _eval(f"--checkpoint={tmp_path / 'tiny.pt'}", "--device=cuda")
