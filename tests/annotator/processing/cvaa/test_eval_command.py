"""`eval_cvaa`: the model and the SIFT baseline side by side on held-out real pairs, as a table."""

from __future__ import annotations

import io
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

    # then both methods get a row with recall@1, recall@5 and mean IoU on the same 3 pairs
    assert f"model {active_checkpoint.sha256[:12]} on cpu" in out
    assert "brighton: 18 photos" in out and "map 1865x1085" in out
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith(("cvaa ", "sift "))}
    assert set(rows) == {"cvaa", "sift"}
    for row in rows.values():
        assert "n=3" in row and "R@1 " in row and "R@5 " in row and "mIoU " in row
    # and feature matching on photos of the same flight finds every one (the models' bar to reach)
    assert "R@1 1.00" in rows["sift"]


def test_without_a_model_or_with_an_unknown_set_it_says_what_is_wrong(testdata: Path, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no active CVAA checkpoint: train one"):
        _eval("--sets=brighton")
    with pytest.raises(CommandError, match="unknown set paris; choose from saro, brighton"):
        _eval("--sets=paris")
    (tmp_path / "bad.pt").write_bytes(b"not torch")
    with pytest.raises(CommandError, match=r"bad\.pt: not a CVAA checkpoint"):
        _eval(f"--checkpoint={tmp_path / 'bad.pt'}")
