"""`manage.py score RELEASE PREDICTIONS`: the printed table and its refusals."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from review.releasing.services import release_build

pytestmark = pytest.mark.django_db


@pytest.fixture
def release(admin, approved_items):  # type: ignore[no-untyped-def]
    """Release 1.0: two yes/no items (keys yes, no), a count (7) and a first-seen time (4.0 s)."""
    items = approved_items("yes", "no", count="7", time="4.0")
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

    # then one line per task: n, score, SE, the random row, the human row (none here), chance-adjusted
    assert lines[0] == "Release 1.0: 4 items"
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:] if line.strip()}
    # (no rotated predictions were submitted: the circular column says so rather than 0 %)
    # (the items come from fewer scenes than a clustered SE needs: "-", and a line says why)
    assert rows["target_visibility"] == ["2", "50.0%", "-", "50.0%", "-", "0.00", "not", "scored"]
    assert rows["zone_counting"] == ["1", "100.0%", "-", "-", "-", "-", "not", "scored"]
    assert rows["temporal_grounding"] == ["1", "100.0%", "-", "-", "-", "-", "not", "scored"]
    [note] = [line for line in lines if line.startswith("±SE '-'")]
    assert "estimated from 5 scenes on" in note and "target_visibility: too few scenes (2) for an SE" in note
    assert "overall: too few scenes (4) for an SE" in note
    assert "circular (mean of tasks): not scored" in lines
    # dimensions are means of their task scores, overall the mean of the three task scores
    assert rows["perception"] == ["75.0%", "-", "-"]
    assert rows["localization"] == ["100.0%", "-", "-"]
    assert rows["overall"][:2] == ["4", "83.3%"]
    # and the yes/no choices (both "yes", position 0) show full bias; the key (yes, no) none
    assert "choice bias of the predictions (2-option): entropy 0.000  p_mode 1.000  KL 0.693" in lines
    assert "choice bias of the answer key (2-option): entropy 1.000  p_mode 0.500  KL 0.000" in lines
    assert not any(line.startswith("missing predictions") for line in lines)


def test_missing_predictions_count_as_wrong(release, tmp_path: Path) -> None:
    yes, no, count, time = release.uids
    path = _write(tmp_path, [json.dumps({"id": yes, "answer": "yes"})])

    lines = _score("1.0", str(path))

    rows = {line.split()[0]: line.split()[1:] for line in lines[1:] if line.strip()}
    assert rows["overall"][:2] == ["4", "16.7%"]
    assert rows["target_visibility"][:2] == ["2", "50.0%"]
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


def test_tsv_predictions_answer_forms_and_the_log(release, tmp_path: Path) -> None:
    # given a VLMEvalKit-style TSV with a letter, a sentence, a number word and a clock time
    yes, no, count, time = release.uids
    path = tmp_path / "preds.tsv"
    path.write_text(f"index\tprediction\n{yes}\t(A)\n{no}\tThe answer is no.\n{count}\tseven\n{time}\t0:04\n")
    log = tmp_path / "log.jsonl"

    lines = _score("1.0", str(path), "--log", str(log))

    rows = {line.split()[0]: line.split()[1:] for line in lines[1:] if line.strip()}
    assert rows["overall"][:2] == ["4", "100.0%"]
    read = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["read"], r["rule"]) for r in read] == [
        ("yes", "letter"),
        ("no", "stated answer"),
        (7.0, "number words"),
        (4.0, "clock time"),
    ]


def test_unreadable_duplicate_and_unknown_ids_are_listed(release, tmp_path: Path) -> None:
    yes, no, _count, _time = release.uids
    path = _write(
        tmp_path,
        [
            json.dumps({"id": yes, "answer": "perhaps"}),
            json.dumps({"id": yes, "answer": "yes"}),
            json.dumps({"id": "skm-999999", "answer": "yes"}),
            json.dumps({"id": no, "answer": "no"}),
        ],
    )
    lines = _score("1.0", str(path))
    assert "unreadable answers: 1 (counted wrong):" in lines
    assert f"  {yes}: 'perhaps' (no yes or no found)" in lines
    assert f"duplicate ids: 1 (the first answer counts), e.g. {yes}" in lines
    assert "unknown ids: 1 (not in this release, ignored), e.g. skm-999999" in lines


def test_paired_comparison_of_two_submissions(release, tmp_path: Path) -> None:
    yes, no, *_ = release.uids
    a = _write(tmp_path, [json.dumps({"id": yes, "answer": "yes"})])
    b = tmp_path / "b.jsonl"
    b.write_text("\n".join(json.dumps({"id": i, "answer": v}) for i, v in ((yes, "yes"), (no, "no"))) + "\n")
    lines = _score("1.0", str(a), "--compare", str(b))
    # b gains half of target visibility (one of three tasks): +16.7 points
    assert any(line.startswith("b.jsonl minus predictions.jsonl: +16.7 points") for line in lines)
    assert any(line.endswith("(no SE: too few scenes (4) for an SE)") for line in lines)
