"""review.reviewing.apis: reviewers only, blind answers, and a queue whose query count does not grow."""

from __future__ import annotations

import pytest

from tests.factories import ItemFactory, MarkFactory, SceneFactory

pytestmark = pytest.mark.django_db


def _submitted(annotator):  # type: ignore[no-untyped-def]
    scene = SceneFactory(annotators=[annotator])
    return ItemFactory(
        scene=scene, author=annotator, marks=[MarkFactory(scene=scene, author=annotator)], state="in_review"
    )


def _count(client, url: str) -> int:  # type: ignore[no-untyped-def]
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url)  # the first request also loads the user's roles, cached afterwards
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_queue_is_for_reviewers_and_hides_answers(annotator, reviewer, api) -> None:
    item = _submitted(annotator)
    assert api(annotator).get("/api/review/queue/").status_code == 403
    queue = api(reviewer).get("/api/review/queue/").json()
    shown = next(q for q in queue if q["id"] == item.id)
    # a blind review: the answer key is not in what the reviewer sees first
    assert "answer" not in shown


def test_queue_queries_do_not_grow(annotator, reviewer, api) -> None:
    client = api(reviewer)
    _submitted(annotator)
    few = _count(client, "/api/review/queue/")
    for _ in range(6):
        _submitted(annotator)
    assert _count(client, "/api/review/queue/") == few <= 8


def test_reviews_list_is_for_admins(reviewer, admin, api) -> None:
    assert api(reviewer).get("/api/reviews/").status_code == 403
    assert api(admin).get("/api/reviews/").status_code == 200
