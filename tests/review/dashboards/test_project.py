"""A project's dashboard: items per task against the mix, per stage, per person, what is blocked
and where the scenes are; its query count does not grow with the rows."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotator.models import Item, MediaJob, ProjectMembership
from media_tools.geo.georef import georef_from_corners
from review.models import Release, ReleaseItem, Review
from tests.factories import (
    AdminFactory,
    AnnotatorFactory,
    ItemFactory,
    MediaJobFactory,
    ProjectFactory,
    ReviewerFactory,
    SatelliteImageFactory,
    SceneFactory,
)

pytestmark = pytest.mark.django_db
S = Item.State


def _world(admin: Any, extra: int = 0) -> Any:
    ann, rev = AnnotatorFactory(username="ann-p"), ReviewerFactory(username="rev-p")
    project = ProjectFactory(
        task_mix={"target_visibility": 4, "zone_counting": 2},
        members={"admin": [admin], "annotator": [ann], "reviewer": [rev]},
    )
    ProjectMembership.objects.filter(user__in=[ann, rev]).exclude(project=project).delete()  # this project's only
    corners = {"tl": [50.83, -0.14], "tr": [50.83, -0.12], "br": [50.81, -0.12], "bl": [50.81, -0.14]}
    image = SatelliteImageFactory(georef=georef_from_corners(corners, width=200, height=100).to_dict())
    scene = SceneFactory(project=project, name="Pier", satellite_images=[image])
    for state in (S.DRAFT, S.IN_REVIEW, S.APPROVED, S.APPROVED, S.REJECTED, S.WITHDRAWN, *[S.DRAFT] * extra):
        ItemFactory(scene=scene, author=ann, state=state, active_seconds=120)
    ItemFactory(scene=scene, author=ann, task=Item.Task.ZONE_COUNTING, state=S.DRAFT, stale=True)
    released = Item.objects.filter(scene=scene, state=S.APPROVED).first()
    release = Release.objects.create(
        version="p1", project=project, created_by=admin, state=Release.State.FROZEN, frozen_at=timezone.now(),
        items_file="r/items.jsonl",
    )  # fmt: skip
    ReleaseItem.objects.create(release=release, item=released, uid=released.uid, split="test", record={})
    Review.objects.create(
        item=released, reviewer=rev, revision=1, blind_answer="yes", blind_correct=True, answer_seconds=30,
        decision=Review.Decision.APPROVE, decision_seconds=30, decided_at=timezone.now(),
    )  # fmt: skip
    MediaJobFactory(scene=scene, kind=MediaJob.Kind.PROBE, state=MediaJob.State.FAILED, error="clip.mp4: broken")
    ItemFactory(state=S.APPROVED)  # another project's item counts nowhere here
    return project


def test_the_dashboard_counts_the_projects_items_against_the_plan(admin: Any) -> None:
    project = _world(admin)
    client = Client()
    client.force_login(admin)
    page = client.get(f"/projects/{project.id}/dashboard/")
    assert page.status_code == 200
    html = page.content.decode()
    # the chart: 5 live Target Visibility items against 4 planned, 1 Zone Counting of 2
    assert 'data-task="Target Visibility" data-count="5" data-target="4"' in html
    assert 'data-task="Zone Counting" data-count="1" data-target="2"' in html
    stages = {key: n for key, _, n in page.context["stages"]}
    assert stages == {"draft": 2, "in_review": 1, "in_adjudication": 0, "approved": 1, "released": 1, "rejected": 1}
    (annotator,) = page.context["annotators"]
    assert (annotator.username, annotator.done, annotator.approved, annotator.minutes) == ("ann-p", 6, 2, 10.0)
    (reviewer,) = page.context["reviewers"]
    assert (reviewer.username, reviewer.done, reviewer.approved, reviewer.minutes) == ("rev-p", 1, 1, 1.0)
    blocked = page.context["blocked"]
    assert [blocked[k]["count"] for k in ("jobs", "stale", "rejected")] == [1, 1, 1]
    assert "clip.mp4: broken" in html
    (point,) = page.context["points"]
    assert point["name"] == "Pier" and point["lat"] == pytest.approx(50.82) and point["lon"] == pytest.approx(-0.13)


def test_the_dashboard_query_count_does_not_grow_with_items(admin: Any, django_assert_num_queries) -> None:
    small = _world(admin)
    client = Client()
    client.force_login(admin)
    client.get(f"/projects/{small.id}/dashboard/")
    with CaptureQueriesContext(connection) as few:
        client.get(f"/projects/{small.id}/dashboard/")
    assert len(few.captured_queries) <= 16
    for _ in range(5):
        ItemFactory(scene=small.scenes.get(), author=small.memberships.get(role="annotator").user, state=S.REJECTED)
    with django_assert_num_queries(len(few.captured_queries)):
        client.get(f"/projects/{small.id}/dashboard/")


def test_only_admins_of_the_project_see_its_dashboard(admin: Any) -> None:
    project = _world(admin)
    client = Client()
    client.force_login(AnnotatorFactory())
    assert client.get(f"/projects/{project.id}/dashboard/").status_code == 403
    client.force_login(AdminFactory())  # an admin, but not of this project
    assert client.get(f"/projects/{project.id}/dashboard/").status_code == 404


def test_the_review_dashboard_shows_only_the_admins_projects(admin: Any) -> None:
    # given another project's reviewer with a decision, gold checks and open work there
    _world(AdminFactory(username="boss-b"))
    client = Client()
    client.force_login(admin)  # an admin of the default project only
    page = client.get("/review/dashboard/")
    assert page.status_code == 200
    assert "rev-p" not in page.content.decode() and "ann-p" not in page.content.decode()
    assert all(r.username != "rev-p" for r in page.context["throughput"])
    # while a superuser sees every project
    admin.is_superuser = True
    admin.save()
    client.force_login(admin)
    assert "rev-p" in client.get("/review/dashboard/").content.decode()


def test_audit_and_effort_pages_read_the_admins_projects_only(admin: Any) -> None:
    _world(AdminFactory(username="boss-c"))  # another project's items, each with two minutes of work
    client = Client()
    client.force_login(admin)
    assert client.get("/compiling/effort/").context["rows"] == []
    # the audit reads the one approved item of the default project, not the other project's six
    assert [(name, r.items) for name, r in client.get("/compiling/audit/").context["reports"]] == [
        ("Target Visibility", 1)
    ]
    admin.is_superuser = True
    admin.save()
    client.force_login(admin)
    assert [name for name, _ in client.get("/compiling/effort/").context["rows"]] == ["Target Visibility"]
