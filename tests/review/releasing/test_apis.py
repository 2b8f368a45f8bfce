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
    assert any(f["path"] == "data/test.jsonl" for f in detail["manifest"]["files"])


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
