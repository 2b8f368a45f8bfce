"""`manage.py score RELEASE PREDICTIONS`: the printed table and its refusals."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotator.models import Item
from review.releasing.services import release_build
from tests.factories import ItemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def release(admin):  # type: ignore[no-untyped-def]
    """Release 1.0: two yes/no items (keys yes, no), a count (7) and a first-seen time (4.0 s)."""
    items = [
        ItemFactory(state=Item.State.APPROVED, answer="yes"),
        ItemFactory(state=Item.State.APPROVED, answer="no"),
        ItemFactory(
            state=Item.State.APPROVED,
            task=Item.Task.ZONE_COUNTING,
            options=[],
            answer="7",
            answer_format=Item.AnswerFormat.NUMBER,
        ),
        ItemFactory(
            state=Item.State.APPROVED,
            task=Item.Task.TEMPORAL_GROUNDING,
            options=[],
            answer="4.0",
            answer_format=Item.AnswerFormat.TIMESTAMP,
        ),
    ]
    release = release_build(version="1.0", user=admin)
    release.uids = [i.uid for i in items]
    return release


def _write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "predictions.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _score(*args: str) -> list[str]:
    out = io.StringIO()
    call_command("score", *args, stdout=out)
    return out.getvalue().splitlines()


def test_score_prints_per_task_dimension_and_overall(release, tmp_path: Path) -> None:
    # given predictions: one yes/no right, one wrong, the count exact, the time 0.9 s off
    yes, no, count, time = release.uids
    path = _write(
        tmp_path,
        [
            json.dumps({"id": yes, "answer": "Yes"}),
            json.dumps({"id": no, "answer": "yes"}),
            json.dumps({"id": count, "answer": 7}),
            json.dumps({"id": time, "answer": "4.9"}),
        ],
    )

    # when scored
    lines = _score("1.0", str(path))

    # then one line per task with n and the score, per dimension, and overall
    assert lines[0] == "Release 1.0: 4 items"
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:] if line.strip()}
    assert rows["target_visibility"] == ["2", "50.0%"]
    assert rows["zone_counting"] == ["1", "100.0%"]
    assert rows["temporal_grounding"] == ["1", "100.0%"]
    assert rows["perception"] == ["3", "66.7%"]
    assert rows["localization"] == ["1", "100.0%"]
    assert rows["overall"] == ["4", "75.0%"]
    # and the yes/no choices (both "yes", position 0) show full bias
    assert "choice bias (2-option): entropy 0.000  p_mode 1.000  KL 0.693" in lines
    assert not any(line.startswith("missing predictions") for line in lines)


def test_missing_predictions_count_as_wrong(release, tmp_path: Path) -> None:
    yes, no, count, time = release.uids
    path = _write(tmp_path, [json.dumps({"id": yes, "answer": "yes"})])

    lines = _score("1.0", str(path))

    rows = {line.split()[0]: line.split()[1:] for line in lines[1:] if line.strip()}
    assert rows["overall"] == ["4", "25.0%"]
    assert rows["target_visibility"] == ["2", "50.0%"]
    assert lines[-1] == f"missing predictions: 3 (counted wrong), e.g. {no}, {count}, {time}"


def test_bad_prediction_line_is_named(release, tmp_path: Path) -> None:
    # given a file whose second line is not JSON
    path = _write(tmp_path, [json.dumps({"id": release.uids[0], "answer": "yes"}), '{"id": "skm-1", answer: no}'])

    # then the command stops and names the line
    with pytest.raises(CommandError, match=r"^predictions line 2: not JSON"):
        _score("1.0", str(path))


def test_prediction_without_answer_is_named(release, tmp_path: Path) -> None:
    path = _write(tmp_path, [json.dumps({"id": release.uids[0], "answer": "yes"}), json.dumps({"id": "x"})])
    with pytest.raises(CommandError, match=r"^prediction 2: needs 'id' and 'answer'$"):
        _score("1.0", str(path))


def test_unknown_release_lists_the_known_ones(release, tmp_path: Path) -> None:
    path = _write(tmp_path, ["{}"])
    with pytest.raises(CommandError, match=r"^no release '9\.9' \(releases: 1\.0\)$"):
        _score("9.9", str(path))


def test_missing_predictions_file(release, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="predictions file not found"):
        _score("1.0", str(tmp_path / "nope.jsonl"))
