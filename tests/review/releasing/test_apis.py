"""review.releasing.apis and pages: 202 while a release builds as a job, progress, 409, errors."""

from __future__ import annotations

import pytest

from annotator.models import Item
from review.models import Release
from tests.factories import ItemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def approved(annotator):  # type: ignore[no-untyped-def]
    # one key each way: yes/no balancing holds nothing back
    return [ItemFactory(state=Item.State.APPROVED, author=annotator, answer=a) for a in ("yes", "no")]


def test_post_answers_202_and_the_job_freezes_it(
    approved, admin, api, celery_eager, django_capture_on_commit_callbacks
) -> None:
    client = api(admin)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/releases/", {"version": "1.0"}, format="json")
    assert response.status_code == 202
    assert (response.json()["state"], response.json()["item_count"]) == ("building", 2)
    detail = client.get("/api/releases/1.0/").json()
    assert (detail["state"], detail["progress"]) == ("frozen", 100)
    assert detail["archive_url"] == "/releases/1.0.zip"
    assert any(f["path"] == "data/test.parquet" for f in detail["manifest"]["files"])


def test_yes_no_balancing_is_on_unless_the_request_turns_it_off(annotator, admin, api) -> None:  # type: ignore[no-untyped-def]
    # given two approved items that both say yes
    for _ in range(2):
        ItemFactory(state=Item.State.APPROVED, author=annotator, answer="yes")
    client = api(admin)
    # when released with balancing (the default) / then all would be held back: 400 on the field
    refused = client.post("/api/releases/", {"version": "1.0"}, format="json")
    assert refused.status_code == 400 and "held back to balance yes and no" in refused.json()["balance_yes_no"][0]
    # and without it both are released, and the filters say so
    response = client.post("/api/releases/", {"version": "1.0", "balance_yes_no": False}, format="json")
    assert response.status_code == 202
    assert (response.json()["item_count"], response.json()["filters"]["balance_yes_no"]) == (2, False)


def test_a_second_build_of_the_same_version_is_409(approved, admin, api) -> None:
    client = api(admin)
    assert client.post("/api/releases/", {"version": "1.0"}, format="json").status_code == 202
    again = client.post("/api/releases/", {"version": "1.0"}, format="json")
    assert again.status_code == 409
    assert again.json()["detail"] == "release 1.0 is being built right now; wait for it to finish"
    assert Release.objects.count() == 1


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"version": "next"}, "version", "use a version like 1.0 or v1.2.0"),
        ({"version": "1.0", "tasks": ["telepathy"]}, "tasks", '"telepathy" is not a valid choice.'),
        (
            {"version": "1.0", "approved_after": "2026-02-01T00:00:00Z", "approved_before": "2026-01-01T00:00:00Z"},
            "approved_before",
            "must be later than approved_after",
        ),
        (
            {"version": "1.0", "tasks": ["relative_direction"]},
            "version",
            "there are no approved items to release (with these filters)",
        ),
        ({"version": "1.0", "test_share": 0}, "test_share", "greater than or equal to 0.05"),
        ({"version": "1.0", "test_share": 1.5}, "test_share", "less than or equal to 1.0"),
    ],
)
def test_bad_requests_are_field_errors(approved, admin, api, body: dict, field: str, message: str) -> None:
    response = api(admin).post("/api/releases/", body, format="json")
    assert response.status_code == 400
    assert message in str(response.json()[field])
    assert Release.objects.count() == 0


def test_the_page_shows_a_building_release_and_hides_its_downloads(approved, admin, client) -> None:
    client.force_login(admin)
    response = client.post("/releases/", {"version": "1.0"})
    assert response.status_code == 302
    page = client.get("/releases/").content.decode()
    assert 'data-state="building"' in page and "when built" in page
    assert client.get("/releases/1.0/items.jsonl").status_code == 404  # nothing to download yet


def test_the_test_share_is_the_admins_and_the_manifest_records_it(annotator, admin, api) -> None:
    from tests.factories import SceneFactory, VideoFactory, one_pixel_video

    # given two scenes with their own clips, three items each
    first = SceneFactory(name="A")
    clip = VideoFactory(source=one_pixel_video(), duration_s=1.0, fps=5.0, frame_count=5, width=1, height=1)
    second = SceneFactory(name="B", video=clip)
    for scene in (first, second):
        for _ in range(3):
            ItemFactory(state=Item.State.APPROVED, author=annotator, scene=scene)
    # when an admin builds a release with half of it for test
    response = api(admin).post(
        "/api/releases/", {"version": "1.0", "test_share": 0.5, "balance_yes_no": False}, format="json"
    )
    assert response.status_code == 202, response.content
    from review.releasing.jobs import release_run

    release = release_run(release_id=response.json()["id"])
    # then each scene is one side, and the manifest says by which rule and share
    split = release.manifest["split"]
    assert (split["test_share"], split["scene_groups"], split["counts"]) == (0.5, 2, {"test": 3, "train": 3, "tiny": 3})
    assert "scene group" in split["rule"] and release.manifest["warnings"] == []
    sides = {e.record["scene"]: e.split for e in release.entries.all()}
    assert sorted(sides.values()) == ["test", "train"]


def test_an_empty_train_split_is_a_warning_in_the_manifest_api_and_page(approved, admin, api, client) -> None:
    # given items from one scene group only (the factory's scenes share one clip)
    from review.releasing.services import release_build

    release_build(version="1.0", user=admin)
    detail = api(admin).get("/api/releases/1.0/").json()
    [warning] = detail["warnings"]
    assert warning.startswith("train is empty: all 2 items come from 1 scene group(s)")
    assert detail["manifest"]["split"]["counts"]["train"] == 0
    client.force_login(admin)
    page = client.get("/releases/").content.decode()
    assert 'data-testid="release-warning"' in page and "train is empty" in page
    datasheet = b"".join(client.get("/releases/1.0/datasheet/").streaming_content).decode()
    assert "<li>train is empty: all 2 items come from 1 scene group(s)" in datasheet
