"""review.scoring services, API and page: predictions scored into a leaderboard per release."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from review.models import Submission
from review.releasing.services import release_build
from tests.factories import ReviewerFactory, ReviewFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def release(admin, approved_items):  # type: ignore[no-untyped-def]
    items = approved_items("yes", "no", count="7")
    # blind answers recorded while reviewing become the human row
    for item, answer in zip(items, ["yes", "yes", "7"], strict=True):
        ReviewFactory(
            item=item, reviewer=ReviewerFactory(), blind_answer=answer, decision="approve", decided_at=timezone.now()
        )
    release = release_build(version="1.0", user=admin)
    release.uids = [i.uid for i in items]
    return release


def _upload(name: str, lines: list[dict]) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, "".join(json.dumps(x) + "\n" for x in lines).encode())


def test_upload_scores_and_ranks_with_random_and_human_rows(release, admin, api) -> None:
    yes, no, count = release.uids
    client = api(admin)
    good = client.post(
        "/api/releases/1.0/submissions/",
        {
            "name": "model-a",
            "predictions": _upload(
                "a.jsonl", [{"id": yes, "answer": "A"}, {"id": no, "answer": "(B)"}, {"id": count, "answer": "seven"}]
            ),
        },
        format="multipart",
    )
    assert good.status_code == 201, good.content
    assert good.json()["overall"] == pytest.approx(1.0)
    weak = client.post(
        "/api/releases/1.0/submissions/",
        {
            "name": "model-b",
            "predictions": _upload("b.jsonl", [{"id": yes, "answer": "yes"}, {"id": no, "answer": "?"}]),
        },
        format="multipart",
    )
    assert weak.status_code == 201
    report = weak.json()["report"]
    assert (report["missing"], report["unparseable"]) == (1, 1)
    assert report["overall"] == pytest.approx(0.25)  # visibility 1/2, counting 0: mean of the task scores
    assert report["human_overall"] == pytest.approx((0.5 + 1.0) / 2)
    assert [s["name"] for s in client.get("/api/releases/1.0/submissions/").json()["results"]] == ["model-a", "model-b"]


def test_bad_uploads_get_field_errors_and_store_nothing(release, admin, api, media_files) -> None:
    client = api(admin)
    before = media_files()
    not_json = client.post(
        "/api/releases/1.0/submissions/",
        {"name": "x", "predictions": SimpleUploadedFile("p.jsonl", b'{"id": 1, answer}\n')},
        format="multipart",
    )
    assert not_json.status_code == 400
    assert not_json.json()["predictions"] == [
        "predictions line 1: not JSON (Expecting property name enclosed in double quotes)"
    ]
    foreign = client.post(
        "/api/releases/1.0/submissions/",
        {"name": "x", "predictions": _upload("p.jsonl", [{"id": "skm-999999", "answer": "yes"}])},
        format="multipart",
    )
    assert foreign.json()["predictions"] == ["no prediction has an id of this release"]
    yes = release.uids[0]
    first = {"name": "m", "predictions": _upload("p.jsonl", [{"id": yes, "answer": "yes"}])}
    assert client.post("/api/releases/1.0/submissions/", first, format="multipart").status_code == 201
    twice = client.post(
        "/api/releases/1.0/submissions/",
        {"name": "m", "predictions": _upload("p.jsonl", [{"id": yes, "answer": "no"}])},
        format="multipart",
    )
    assert twice.json()["name"] == ["'m' is already on the 1.0 leaderboard"]
    assert Submission.objects.count() == 1
    assert len(media_files() - before) == 2  # the one accepted submission: predictions and its log


def test_only_admins_see_or_submit(release, annotator, reviewer, api) -> None:
    for user in (annotator, reviewer):
        assert api(user).get("/api/releases/1.0/submissions/").status_code == 403


def test_the_page_ranks_and_links_the_per_item_log(release, admin, client) -> None:
    client.force_login(admin)
    yes = release.uids[0]
    response = client.post(
        "/releases/1.0/leaderboard/",
        {"name": "model-a", "predictions": _upload("a.jsonl", [{"id": yes, "answer": "yes"}])},
    )
    assert response.status_code == 302
    page = client.get("/releases/1.0/leaderboard/").content.decode()
    assert "model-a" in page and 'id="random-row"' in page and 'id="human-row"' in page
    # the heading counts the results shown (the random and human rows are references, not results)
    assert 'data-testid="results-count">(1)<' in page
    # each task's column is headed by its name, whole
    assert '<th class="num task-head">Target Visibility</th>' in page
    # the release's items come from fewer scenes than a clustered SE needs: said, not "± 0"
    scenes = Submission.objects.get().report["scenes"]
    assert scenes < 5 and f'data-field="se">too few scenes ({scenes}) for an SE<' in page and "± 0" not in page
    submission = Submission.objects.get()
    log = client.get(f"/releases/1.0/leaderboard/{submission.id}/log.jsonl")
    lines = [json.loads(x) for x in b"".join(log.streaming_content).decode().splitlines()]
    assert (lines[0]["id"], lines[0]["rule"]) == (yes, "option text")


def test_an_oversized_predictions_file_is_refused_with_a_field_error(release, admin, api, monkeypatch) -> None:
    from review.scoring import services

    monkeypatch.setattr(services, "MAX_PREDICTIONS_BYTES", 2 * 2**20)
    upload = SimpleUploadedFile("big.jsonl", b"x" * (2 * 2**20 + 1))

    response = api(admin).post(
        "/api/releases/1.0/submissions/", {"name": "big", "predictions": upload}, format="multipart"
    )

    assert response.status_code == 400
    assert response.json()["predictions"] == ["big.jsonl: larger than 2 MB"]
    assert not Submission.objects.exists()


def test_the_size_is_checked_before_reading(monkeypatch) -> None:
    from django.core.exceptions import ValidationError

    from review.scoring import services

    class Huge:
        name, size = "huge.jsonl", services.MAX_PREDICTIONS_BYTES + 1

        def read(self, *args: object) -> bytes:
            raise AssertionError("read before the size check")

    with pytest.raises(ValidationError, match=r"huge\.jsonl: larger than 64 MB"):
        services.predictions_read(upload=Huge())  # type: ignore[arg-type]


def test_a_vlmevalkit_result_file_is_scored_on_its_prediction_column_not_its_answer_key(release, admin, api) -> None:
    # VLMEvalKit writes the benchmark's `answer` (the key) beside the model's `prediction`
    yes, no, count = release.uids
    number = {uid: int(uid.rsplit("-", 1)[-1]) for uid in release.uids}
    rows = [f"{number[yes]}\tA\tB", f"{number[no]}\tB\tB", f"{number[count]}\t7\t3"]
    text = "index\tanswer\tprediction\n" + "\n".join(rows) + "\n"

    response = api(admin).post(
        "/api/releases/1.0/submissions/",
        {"name": "vlm", "predictions": SimpleUploadedFile("vlm_result.tsv", text.encode())},
        format="multipart",
    )

    assert response.status_code == 201, response.content
    report = response.json()["report"]
    assert report["missing"] == 0 and report["unknown"] == 0  # every index found its item
    assert report["overall"] < 1.0  # the key column would have scored 100 %
