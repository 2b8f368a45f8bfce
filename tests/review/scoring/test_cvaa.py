"""Scoring the "with CVAA" variant beside the plain one: one predictions file (lines marked
"variant": "cvaa") or two (`manage.py score --cvaa`), a row each with the benchmark's metrics at
their boundaries, the difference per task and overall, on the leaderboard page and in the API."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from review.releasing.services import release_build
from review.scoring.services import release_score

pytestmark = pytest.mark.django_db


@pytest.fixture
def release(admin, approved_items):  # type: ignore[no-untyped-def]
    """Items keyed yes, no, a count of 7 and a first sighting at 4.0 s."""
    items = approved_items("yes", "no", count="7", time="4.0")
    release = release_build(version="1.0", user=admin, balance_yes_no=False)
    release.uids = [i.uid for i in items]
    return release


def _lines(answers: dict[str, Any], variant: str | None = None) -> list[dict[str, Any]]:
    return [{"id": k, "answer": v, **({"variant": variant} if variant else {})} for k, v in answers.items()]


def _text(lines: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(x) + "\n" for x in lines)


def _boundaries(release: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Plain: everything right, 1 s off the time (ACC@1s counts |d| <= 1 s). With CVAA: the yes/no
    wrong, the count exactly 50 % off (MRA: wrong at every threshold, |d|/y < 1 - 0.5 is false) and
    the time just over 1 s off."""
    yes, no, count, time = release.uids
    plain = {yes: "yes", no: "no", count: "7", time: "5.0"}
    cvaa = {yes: "no", no: "yes", count: "3.5", time: "5.01"}
    return plain, cvaa


def test_one_file_with_both_variants_gives_two_rows_and_their_difference(release) -> None:
    plain, cvaa = _boundaries(release)
    text = _text(_lines(plain) + _lines(cvaa, "cvaa"))

    report = release_score(release=release, text=text, filename="p.jsonl")

    tasks = {"target_visibility": 1.0, "zone_counting": 1.0, "temporal_grounding": 1.0}
    assert {t: r.score for t, r in report.tasks.items()} == tasks
    assert report.overall == 1.0
    assert report.cvaa is not None and report.cvaa_difference is not None
    assert {t: r.score for t, r in report.cvaa.tasks.items()} == dict.fromkeys(tasks, 0.0)
    assert report.cvaa.overall == 0.0
    assert report.cvaa_difference.tasks == dict.fromkeys(tasks, -1.0)
    assert report.cvaa_difference.difference == -1.0
    assert report.cvaa.missing == [] and report.missing == []


def test_a_with_cvaa_row_only_where_its_answers_differ(release) -> None:
    # given the same answers in both variants but the count 3.6 (MRA 0.1: only |d|/y = 0.486 < 0.5)
    plain, _ = _boundaries(release)
    count = release.uids[2]
    report = release_score(
        release=release, text=_text(_lines(plain) + _lines({**plain, count: "3.6"}, "cvaa")), filename="p.jsonl"
    )
    assert report.cvaa is not None and report.cvaa_difference is not None
    assert report.cvaa.tasks["zone_counting"].score == pytest.approx(0.1)
    assert report.cvaa_difference.tasks == {
        "target_visibility": 0.0,
        "temporal_grounding": 0.0,
        "zone_counting": pytest.approx(-0.9),
    }
    assert report.cvaa_difference.difference == pytest.approx(-0.3)
    assert report.cvaa.overall - report.overall == pytest.approx(report.cvaa_difference.difference)


def test_without_with_cvaa_answers_there_is_one_row(release) -> None:
    plain, _ = _boundaries(release)
    report = release_score(release=release, text=_text(_lines(plain, "plain")), filename="p.jsonl")
    assert report.cvaa is None and report.cvaa_difference is None


def test_missing_with_cvaa_answers_count_wrong_in_that_row(release) -> None:
    plain, _ = _boundaries(release)
    yes = release.uids[0]
    report = release_score(release=release, text=_text(_lines(plain) + _lines({yes: "yes"}, "cvaa")), filename="p")
    assert report.cvaa is not None
    assert sorted(report.cvaa.missing) == sorted(release.uids[1:])
    assert report.cvaa.tasks["target_visibility"].score == 0.5


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([{"answer": "yes", "variant": "cvaa-v2"}], "prediction 1: variant 'cvaa-v2' is not one"),
        ([{"answer": "yes", "variant": "cvaa"}], "no plain prediction has an id"),
    ],
)
def test_bad_variants_are_refused_naming_the_line(release, lines, message) -> None:
    # The release's own first id: ids are numbered by database sequences, which PostgreSQL does not rewind.
    lines = [{"id": release.uids[0], **line} for line in lines]
    with pytest.raises(ValidationError) as exc:
        release_score(release=release, text=_text(lines), filename="p.jsonl")
    assert message in " ".join(exc.value.message_dict["predictions"])


def test_a_tsv_with_a_variant_column(release) -> None:
    plain, cvaa = _boundaries(release)
    rows = [f"{k}\t{v}\tplain" for k, v in plain.items()] + [f"{k}\t{v}\tcvaa" for k, v in cvaa.items()]
    report = release_score(release=release, text="id\tprediction\tvariant\n" + "\n".join(rows), filename="r.tsv")
    assert report.overall == 1.0 and report.cvaa is not None and report.cvaa.overall == 0.0


def test_the_command_prints_both_rows_and_the_difference_from_one_file_or_two(release, tmp_path: Path) -> None:
    plain, cvaa = _boundaries(release)
    one = tmp_path / "both.jsonl"
    one.write_text(_text(_lines(plain) + _lines(cvaa, "cvaa")))
    first, second = tmp_path / "plain.jsonl", tmp_path / "cvaa.jsonl"
    first.write_text(_text(_lines(plain)))
    second.write_text(_text(_lines(cvaa)))  # a file of with-CVAA answers needs no variant field

    outputs = []
    for args in ([str(one)], [str(first), "--cvaa", str(second)]):
        out = StringIO()
        call_command("score", "1.0", *args, stdout=out)
        outputs.append(out.getvalue())

    assert outputs[0] == outputs[1]
    text = outputs[0]
    assert "With CVAA (question_cvaa" in text
    table = text.split("Plain and with CVAA, the same items")[1]
    rows = {line.split()[0]: line.split()[1:] for line in table.splitlines()[2:] if line.strip()}
    assert rows["zone_counting"] == ["1", "100.0%", "0.0%", "-100.0"]
    assert rows["perception"] == ["100.0%", "0.0%", "-100.0"]
    assert rows["overall"] == ["4", "100.0%", "0.0%", "-100.0"]


def test_a_with_cvaa_file_may_not_hold_plain_answers(release, tmp_path: Path) -> None:
    from django.core.management.base import CommandError

    plain, _ = _boundaries(release)
    first = tmp_path / "plain.jsonl"
    first.write_text(_text(_lines(plain)))
    (tmp_path / "x.jsonl").write_text(_text(_lines(plain, "plain")))
    with pytest.raises(CommandError, match="every line answers the CVAA variant"):
        call_command("score", "1.0", str(first), "--cvaa", str(tmp_path / "x.jsonl"), stdout=StringIO())


def test_the_leaderboard_shows_the_with_cvaa_row_under_the_plain_one(release, admin, api, client) -> None:
    plain, cvaa = _boundaries(release)
    upload = SimpleUploadedFile("p.jsonl", _text(_lines(plain) + _lines(cvaa, "cvaa")).encode())
    created = api(admin).post(
        "/api/releases/1.0/submissions/", {"name": "model-a", "predictions": upload}, format="multipart"
    )
    assert created.status_code == 201, created.content
    report = created.json()["report"]
    assert report["overall"] == 1.0 and report["cvaa"]["overall"] == 0.0
    assert report["cvaa_difference"]["overall"] == -1.0
    assert report["cvaa_difference"]["tasks"]["zone_counting"] == -1.0

    client.force_login(admin)
    page = client.get("/releases/1.0/leaderboard/").content.decode()
    plain_row = page.index('<tr data-submission="')
    cvaa_row = page.index('<tr class="cvaa-row"')
    assert plain_row < cvaa_row
    row = page[cvaa_row : page.index("</tr>", cvaa_row)]
    assert "with CVAA" in row and "0 %" in row and "-100.0 pts" in row
