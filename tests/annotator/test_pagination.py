"""annotator.pagination: every list API answers in pages ({count, next, previous, results}), a
page costs the same number of queries whatever the list's length, and `limit` is capped."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotator.access.roles import ADJUDICATOR
from annotator.models import CvaaCheckpoint, CvaaTraining, Item, MediaJob
from annotator.pagination import MAX_PAGE_SIZE, Pages
from review.models import ItemEvent, RejectionReason, Release, ReviewAssignment, Submission
from tests.factories import (
    AdminFactory,
    AnnotatorFactory,
    AssignmentFactory,
    ItemFactory,
    KeyframeFactory,
    MarkFactory,
    ReviewerFactory,
    ReviewFactory,
    SatelliteImageFactory,
    SceneFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

Adder = Callable[[int], None]


def _scenes(ctx: dict[str, Any]) -> tuple[Any, str, Adder]:
    return ctx["admin"], "/api/scenes/", lambda n: [SceneFactory() for _ in range(n)] and None


def _scene_assignments(ctx: dict[str, Any]) -> tuple[Any, str, Adder]:
    scene = ctx["scene"]
    return (
        ctx["admin"],
        f"/api/scenes/{scene.id}/assignments/",
        lambda n: [AssignmentFactory(scene=scene) for _ in range(n)] and None,
    )


def _scene_jobs(ctx: dict[str, Any]) -> tuple[Any, str, Adder]:
    scene = ctx["scene"]

    def add(n: int) -> None:  # one job per (image, kind): more images, more jobs
        for _ in range(n):
            image = SatelliteImageFactory()
            scene.satellite_images.add(image)
            MediaJob.objects.create(satellite_image=image, kind=MediaJob.Kind.TILES)

    return ctx["admin"], f"/api/scenes/{scene.id}/jobs/", add


def _keyframes(ctx: dict[str, Any]) -> tuple[Any, str, Adder]:
    scene = ctx["scene"]
    return (
        ctx["annotator"],
        f"/api/scenes/{scene.id}/keyframes/",
        lambda n: [KeyframeFactory(video=scene.video) for _ in range(n)] and None,
    )


def _checkpoints(ctx: dict[str, Any]) -> tuple[Any, str, Adder]:
    def add(n: int) -> None:
        start = CvaaCheckpoint.objects.count()
        for i in range(start, start + n):
            CvaaCheckpoint.objects.create(
                file=f"cvaa/checkpoints/{i}.pt",
                original_name=f"{i}.pt",
                sha256=f"{i:064d}",
                size_bytes=1,
                origin="uploaded",
            )

    return ctx["admin"], "/api/cvaa/checkpoints/", add


def _trainings(ctx: dict[str, Any]) -> tuple[Any, str, Adder]:
    return (
        ctx["admin"],
        "/api/cvaa/trainings/",
        lambda n: [CvaaTraining.objects.create(steps=1) for _ in range(n)] and None,
    )


def _marks(ctx: dict[str, Any]) -> tuple[Any, str, Adder]:
    scene, who = ctx["scene"], ctx["annotator"]
    return (
        who,
        f"/api/scenes/{scene.id}/marks/",
        lambda n: [MarkFactory(scene=scene, author=who) for _ in range(n)] and None,
    )


def _items(ctx: dict[str, Any]) -> tuple[Any, str, Adder]:
    scene, who = ctx["scene"], ctx["annotator"]

    def add(n: int) -> None:
        for i in range(n):
            mark = MarkFactory(scene=scene, author=who)
            item = ItemFactory(scene=scene, author=who, marks=[mark])
            if i % 3 == 0:  # stale ones read their marks' snapshots, still in the same queries
                Item.objects.filter(id=item.id).update(stale=True)

    return who, f"/api/items/?scene={scene.id}", add


def _review_queue(ctx: dict[str, Any]) -> tuple[Any, str, Adder]:
    reviewer = ctx["reviewer"]

    def add(n: int) -> None:
        for _ in range(n):
            item = ItemFactory(state=Item.State.IN_REVIEW, marks=[MarkFactory()])
            ReviewAssignment.objects.create(item=item, revision=item.revision, reviewer=reviewer)

    return reviewer, "/api/review/queue/", add


def _reviews(ctx: dict[str, Any]) -> tuple[Any, str, Adder]:
    return ctx["admin"], "/api/reviews/", lambda n: [ReviewFactory() for _ in range(n)] and None


def _reasons(ctx: dict[str, Any]) -> tuple[Any, str, Adder]:
    def add(n: int) -> None:
        start = RejectionReason.objects.count()
        for i in range(start, start + n):
            RejectionReason.objects.create(code=f"extra_{i}", label=f"Extra reason {i}", position=100 + i)

    return ctx["reviewer"], "/api/review/reasons/", add


def _adjudication(ctx: dict[str, Any]) -> tuple[Any, str, Adder]:
    def add(n: int) -> None:
        for _ in range(n):
            item = ItemFactory(state=Item.State.IN_ADJUDICATION, marks=[MarkFactory()])
            ReviewFactory(item=item, decision="approve", decided_at=timezone.now())
            ReviewFactory(item=item, decision="reject", reasons=["wrong_key"], decided_at=timezone.now())

    return UserFactory(username="judge", roles=[ADJUDICATOR]), "/api/review/adjudication/", add


def _audit(ctx: dict[str, Any]) -> tuple[Any, str, Adder]:
    item, admin = ItemFactory(), ctx["admin"]

    def add(n: int) -> None:
        for _ in range(n):
            ItemEvent.objects.create(item=item, revision=1, action="note", actor=admin)

    return admin, f"/api/review/items/{item.id}/audit/", add


def _releases(ctx: dict[str, Any]) -> tuple[Any, str, Adder]:
    admin = ctx["admin"]

    def add(n: int) -> None:
        start = Release.objects.count()
        for i in range(start, start + n):
            Release.objects.create(version=f"0.{i}", created_by=admin)

    return admin, "/api/releases/", add


def _submissions(ctx: dict[str, Any]) -> tuple[Any, str, Adder]:
    admin = ctx["admin"]
    release = Release.objects.create(version="9.0", created_by=admin)

    def add(n: int) -> None:
        start = Submission.objects.count()
        for i in range(start, start + n):
            Submission.objects.create(
                release=release, name=f"model {i}", submitted_by=admin, predictions="submissions/p.jsonl",
                predictions_sha256="0" * 64, report={"tasks": {}}, overall=i / 100, log="submissions/l.jsonl",
            )  # fmt: skip

    return admin, f"/api/releases/{release.version}/submissions/", add


LISTS = {
    "scenes": _scenes,
    "scene assignments": _scene_assignments,
    "scene jobs": _scene_jobs,
    "keyframes": _keyframes,
    "cvaa checkpoints": _checkpoints,
    "cvaa trainings": _trainings,
    "marks": _marks,
    "items": _items,
    "review queue": _review_queue,
    "reviews": _reviews,
    "reasons": _reasons,
    "adjudication queue": _adjudication,
    "audit trail": _audit,
    "releases": _releases,
    "submissions": _submissions,
}


@pytest.fixture
def ctx() -> dict[str, Any]:
    annotator = AnnotatorFactory(username="ann")
    return {
        "admin": AdminFactory(username="ada"),
        "annotator": annotator,
        "reviewer": ReviewerFactory(username="rev"),
        "scene": SceneFactory(annotators=[annotator]),
    }


def _queries(client: Any, url: str) -> tuple[int, dict[str, Any]]:
    client.get(url)  # the first request also loads the user's roles, cached afterwards
    with CaptureQueriesContext(connection) as seen:
        response = client.get(url)
    assert response.status_code == 200, response.content
    return len(seen.captured_queries), response.json()


def _with(url: str, query: str) -> str:
    return url + ("&" if "?" in url else "?") + query


@pytest.mark.parametrize("name", list(LISTS))
def test_a_list_is_paged_and_its_queries_do_not_grow_with_its_rows(name: str, ctx, api) -> None:  # type: ignore[no-untyped-def]
    # given a list with 3 rows of its own
    user, url, add = LISTS[name](ctx)
    client = api(user)
    add(3)
    few, body = _queries(client, url)
    start = body["count"]
    assert set(body) == {"count", "next", "previous", "results"} and len(body["results"]) == start >= 3

    # when it holds 30 more / then a page costs the same queries
    add(27)
    many, body = _queries(client, url)
    assert body["count"] == start + 27 and len(body["results"]) == start + 27
    assert many == few

    # and a page holds what `limit` asks, with a link to the next
    page = client.get(_with(url, "limit=2&offset=2")).json()
    assert len(page["results"]) == 2 and page["next"] and page["previous"]
    assert page["results"] == body["results"][2:4]


@pytest.mark.parametrize("name", list(LISTS))
def test_a_list_caps_the_limit_it_is_asked_for(name: str, ctx, api, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # given a list of 30 rows and a cap of 5 (the real cap is MAX_PAGE_SIZE; one test below)
    user, url, add = LISTS[name](ctx)
    add(30)
    monkeypatch.setattr(Pages, "max_limit", 5)
    # when a client asks for a hundred thousand / then it gets the cap, and the way on
    body = api(user).get(_with(url, "limit=100000")).json()
    assert len(body["results"]) == 5 and body["count"] >= 30 and "offset=5" in body["next"]


def test_the_cap_is_the_max_page_size(ctx, api) -> None:
    # given an item with more audit events than the largest page
    item, admin = ItemFactory(), ctx["admin"]
    ItemEvent.objects.bulk_create(
        ItemEvent(item=item, revision=1, action="note", actor=admin) for _ in range(MAX_PAGE_SIZE + 20)
    )
    body = api(admin).get(f"/api/review/items/{item.id}/audit/?limit=100000").json()
    assert (len(body["results"]), body["count"]) == (MAX_PAGE_SIZE, MAX_PAGE_SIZE + 20)
    rest = api(admin).get(body["next"]).json()
    assert len(rest["results"]) == 20 and rest["next"] is None
    # no limit: the default page (PAGE_SIZE, config/settings/api.py)
    assert len(api(admin).get(f"/api/review/items/{item.id}/audit/").json()["results"]) == 100


def test_the_items_list_rows_leave_the_provenance_out(ctx, api) -> None:
    # given an item built from a mark with a very large polygon, stale since
    scene, who = ctx["scene"], ctx["annotator"]
    ring = [[10 + (i % 100), 10 + i // 100] for i in range(20_000)]
    big = MarkFactory(scene=scene, author=who, geometry={"type": "Polygon", "coordinates": [[*ring, ring[0]]]})
    item = ItemFactory(scene=scene, author=who, marks=[big])
    phrasing = {"phrasing_text": "Is it?", "phrasing_id": 4, "phrasing": 1}
    Item.objects.filter(id=item.id).update(stale=True, provenance={**item.provenance, **phrasing})
    big.version += 1
    big.save(update_fields=["version"])

    # when the list is read
    client = api(who)
    listed = client.get(f"/api/items/?scene={scene.id}")
    [row] = listed.json()["results"]

    # then the row says the same as the item's own page, in a fraction of the bytes
    detail = client.get(f"/api/items/{item.id}/").json()
    assert row == detail
    assert row["phrasing"] == {"id": 4, "index": 1, "text": "Is it?"}
    assert row["stale_reason"].startswith(f"mark #{big.id} (roundabout) changed")
    assert len(listed.content) < 5_000
    with CaptureQueriesContext(connection) as seen:
        client.get(f"/api/items/?scene={scene.id}")
    bare = re.compile(r'(SELECT |, )"annotator_item"\."provenance"(,| FROM)')  # the column, not a key of it
    assert seen.captured_queries and not [q for q in seen.captured_queries if bare.search(q["sql"])]


def test_an_offset_past_the_end_gives_an_empty_page(ctx, api) -> None:
    MarkFactory(scene=ctx["scene"], author=ctx["annotator"])
    client, url = api(ctx["annotator"]), f"/api/scenes/{ctx['scene'].id}/marks/"
    for offset in (1, 10**20):
        body = client.get(f"{url}?offset={offset}").json()
        assert (body["count"], body["results"], body["next"]) == (1, [], None)


@pytest.mark.parametrize("total", [0, 1, 4, 5, 6, 10, 11])
def test_a_page_is_counted_only_when_it_cannot_tell_the_total(total: int, ctx, api) -> None:  # type: ignore[no-untyped-def]
    # given a scene with `total` marks, read in pages of 5 at every offset up to past the end
    for _ in range(total):
        MarkFactory(scene=ctx["scene"], author=ctx["annotator"])
    client, url = api(ctx["annotator"]), f"/api/scenes/{ctx['scene'].id}/marks/"
    client.get(url)  # the roles, cached afterwards
    ids = [m["id"] for m in client.get(f"{url}?limit=500").json()["results"]]
    assert len(ids) == total
    for offset in range(total + 7):
        with CaptureQueriesContext(connection) as seen:
            body = client.get(f"{url}?limit=5&offset={offset}").json()
        counted = any("COUNT(" in q["sql"].upper() for q in seen.captured_queries)
        rows = ids[offset : offset + 5]
        # then the count, the rows and the links are the whole list's, at every boundary
        assert body["count"] == total, (offset, body)
        assert [m["id"] for m in body["results"]] == rows
        assert bool(body["next"]) == (offset + 5 < total)
        assert bool(body["previous"]) == (offset > 0)
        # and the count is asked only of a full page or one past the end (offset 0 ends at once)
        assert counted == (len(rows) == 5 or (not rows and offset > 0)), (offset, counted)
