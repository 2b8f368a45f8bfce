"""review.reviewing.apis: roles, the blind flow over HTTP (400 with field messages, 403, 404, 409),
adjudication, gold, assignments, the audit trail, and list endpoints whose query counts stay
flat as rows grow."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotator.access.roles import ADJUDICATOR
from annotator.models import Item, ProjectMembership
from review.models import Review, ReviewAssignment
from tests.factories import UserFactory, _add_roles
from tests.review.flow import vote

pytestmark = pytest.mark.django_db


def _count(client, url: str) -> int:  # type: ignore[no-untyped-def]
    client.get(url)  # the first request also loads the user's roles, cached afterwards
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_queue_is_for_reviewers_and_hides_answers(item, annotator, reviewer, api) -> None:
    assert api(annotator).get("/api/review/queue/").status_code == 403
    queue = api(reviewer).get("/api/review/queue/").json()["results"]
    assert [q["id"] for q in queue] == [item.id]
    assert not {"answer", "state", "gold"} & set(queue[0])  # blind: no key, nothing that tells gold


def test_queue_queries_do_not_grow(submit, reviewer, second_reviewer, api, django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    client = api(reviewer)
    submit()
    few = _count(client, "/api/review/queue/")
    for _ in range(6):
        submit()
    assert _count(client, "/api/review/queue/") == few
    with django_assert_max_num_queries(few):
        assert len(client.get("/api/review/queue/").json()["results"]) == 7


def test_the_blind_flow_over_http(item, reviewer, api) -> None:
    client = api(reviewer)
    # the item shows no review (so no key) until answered
    assert client.get(f"/api/review/items/{item.id}/").json()["review"] is None
    bad = client.post(f"/api/review/items/{item.id}/answer/", {"blind_answer": "maybe"})
    assert (bad.status_code, bad.json()) == (400, {"blind_answer": ["choose one of: yes, no"]})
    answered = client.post(f"/api/review/items/{item.id}/answer/", {"blind_answer": "yes", "answer_seconds": 4.2})
    assert answered.status_code == 201
    body = answered.json()
    assert (body["answer_key"], body["blind_correct"], body["answer_seconds"]) == ("yes", True, 4.2)
    assert client.post(f"/api/review/items/{item.id}/answer/", {"blind_answer": "no"}).status_code == 409
    decision = f"/api/reviews/{body['id']}/decision/"
    refused = client.post(decision, {"decision": "reject", "reasons": []}, format="json")
    assert (refused.status_code, refused.json()) == (400, {"reasons": ["a rejection needs at least one reason"]})
    done = client.post(
        decision,
        {"decision": "reject", "reasons": ["question_unclear"], "comment": "which pond?", "anchor_time_s": 1.5},
        format="json",
    )
    assert done.status_code == 200, done.content
    assert (done.json()["reasons"], done.json()["anchor_time_s"]) == (["question_unclear"], 1.5)


def test_items_of_others_are_not_found(item, api) -> None:
    outsider = UserFactory(username="r9", roles=["reviewer"])
    assert api(outsider).get(f"/api/review/items/{item.id}/").status_code == 404
    assert api(outsider).post(f"/api/review/items/{item.id}/answer/", {"blind_answer": "yes"}).status_code == 404
    # scope before field errors: a body that fails is not told apart for an item not theirs
    assert api(outsider).post(f"/api/review/items/{item.id}/answer/", {}).status_code == 404
    # nor is an item of their own, even when they review too and it is assigned to them
    author = item.author
    _add_roles(author, True, ["reviewer"])
    ReviewAssignment.objects.create(item=item, revision=item.revision, reviewer=author)
    own = api(item.author).post(f"/api/review/items/{item.id}/answer/", {"blind_answer": "yes"})
    assert own.status_code == 404 and not Review.objects.filter(reviewer=item.author).exists()


def test_reasons_come_from_the_taxonomy(reviewer, api) -> None:
    codes = [r["code"] for r in api(reviewer).get("/api/review/reasons/").json()["results"]]
    assert codes[:3] == ["wrong_key", "wrong_option", "distractor_correct"]
    assert {"ambiguity", "evidence_mismatch", "triviality", "professional_relevance"} <= set(codes)
    assert len(codes) == 12


def test_adjudication_over_http(item, reviewer, second_reviewer, api) -> None:
    vote(item, reviewer, "yes", "approve")
    vote(item, second_reviewer, "yes", "reject", ("mark_misplaced",))
    judge = UserFactory(username="judge", roles=[ADJUDICATOR])
    client = api(judge)
    assert api(reviewer).get("/api/review/adjudication/").status_code == 403
    [queued] = client.get("/api/review/adjudication/").json()["results"]
    assert queued["answer"] == "yes" and [r["decision"] for r in queued["reviews"]] == ["approve", "reject"]
    assert client.get(f"/api/review/adjudication/{item.id}/").json()["mark_ids"] == [item.marks.get().id]
    url = f"/api/review/adjudication/{item.id}/"
    missing = client.post(url, {"decision": "approve", "reason": ""}, format="json")
    assert (missing.status_code, missing.json()) == (400, {"reason": ["say why: the adjudicator's decision is final"]})
    done = client.post(url, {"decision": "approve", "reason": "the key holds"}, format="json")
    assert done.status_code == 201 and Item.objects.get(id=item.id).state == "approved"
    assert client.post(url, {"decision": "approve", "reason": "again"}, format="json").status_code == 404


def test_adjudication_queue_queries_do_not_grow(submit, reviewer, second_reviewer, api) -> None:  # type: ignore[no-untyped-def]
    judge = api(UserFactory(username="judge", roles=[ADJUDICATOR]))

    def disputed() -> None:
        item = submit()
        vote(item, reviewer, "yes", "approve")
        vote(item, second_reviewer, "no", "approve")

    disputed()
    few = _count(judge, "/api/review/adjudication/")
    for _ in range(4):
        disputed()
    assert _count(judge, "/api/review/adjudication/") == few


def test_reviews_list_is_for_admins_and_does_not_grow(submit, reviewer, second_reviewer, admin, api) -> None:  # type: ignore[no-untyped-def]
    assert api(reviewer).get("/api/reviews/").status_code == 403
    client = api(admin)
    vote(submit(), reviewer, "yes", "approve")
    few = _count(client, "/api/reviews/")
    for _ in range(5):
        vote(submit(), reviewer, "yes", "approve")
    assert _count(client, "/api/reviews/") == few
    rows = client.get(f"/api/reviews/?reviewer={reviewer.id}&gold=0").json()["results"]
    assert len(rows) == 6 and rows[0]["reviewer_name"] == "rev1" and rows[0]["gold"] is False
    assert client.get("/api/reviews/?item=x").status_code == 400


def test_audit_trail_gold_and_assignments_are_for_admins(item, reviewer, second_reviewer, admin, api) -> None:
    assert api(reviewer).get(f"/api/review/items/{item.id}/audit/").status_code == 403
    trail = api(admin).get(f"/api/review/items/{item.id}/audit/").json()["results"]
    assert [(e["action"], e["actor_name"]) for e in trail] == [("create", "ann"), ("submit", "ann")]
    assert api(admin).post(f"/api/review/items/{item.id}/gold/").status_code == 409  # not approved
    vote(item, reviewer, "yes", "approve")
    vote(item, second_reviewer, "yes", "approve")
    assert api(admin).post(f"/api/review/items/{item.id}/gold/").status_code == 201
    assert api(admin).delete(f"/api/review/items/{item.id}/gold/").json()["gold"] is False
    added = api(admin).post(f"/api/review/items/{item.id}/assignments/", {"reviewer": reviewer.id})
    assert added.status_code == 409  # approved: no more reviewers


def test_revise_over_http(item, annotator, reviewer, second_reviewer, api) -> None:  # type: ignore[no-untyped-def]
    assert api(annotator).post(f"/api/items/{item.id}/revise/").status_code == 409
    vote(item, reviewer, "no", "reject", ("wrong_key",))
    vote(item, second_reviewer, "no", "reject", ("wrong_key",))
    assert api(reviewer).post(f"/api/items/{item.id}/revise/").status_code == 403
    revised = api(annotator).post(f"/api/items/{item.id}/revise/", {"note": "checked"}, format="json")
    assert revised.status_code == 200, revised.content
    assert (revised.json()["revision"], revised.json()["state"]) == (2, "draft")


def test_an_unchanged_revision_and_withdrawal_over_http(item, annotator, reviewer, second_reviewer, api) -> None:  # type: ignore[no-untyped-def]
    # given a rejected item revised without any change
    vote(item, reviewer, "no", "reject", ("wrong_key",))
    vote(item, second_reviewer, "no", "reject", ("wrong_key",))
    client = api(annotator)
    client.post(f"/api/items/{item.id}/revise/", {}, format="json")

    # then submitting it is refused with what to change, and it stays a draft
    refused = client.post(f"/api/items/{item.id}/submit/", {}, format="json")
    assert refused.status_code == 409
    assert "same as the one the reviewers rejected" in refused.json()["detail"]
    assert Item.objects.get(id=item.id).state == "draft"


def test_withdraw_over_http(item, annotator, reviewer, second_reviewer, api) -> None:  # type: ignore[no-untyped-def]
    assert api(annotator).post(f"/api/items/{item.id}/withdraw/").status_code == 409  # in review
    vote(item, reviewer, "no", "reject", ("wrong_key",))
    vote(item, second_reviewer, "no", "reject", ("wrong_key",))
    assert api(reviewer).post(f"/api/items/{item.id}/withdraw/").status_code == 403
    done = api(annotator).post(f"/api/items/{item.id}/withdraw/", {"reason": "cannot be fixed"}, format="json")
    assert (done.status_code, done.json()["state"]) == (200, "withdrawn")
    assert api(reviewer).get("/api/review/queue/").json()["results"] == []


def test_a_decision_reads_the_taxonomy_and_the_policy_only_when_it_needs_them(
    item, reviewer, second_reviewer, api, django_assert_num_queries
) -> None:  # type: ignore[no-untyped-def]
    first, second = api(reviewer), api(second_reviewer)
    reviews = [
        c.post(f"/api/review/items/{item.id}/answer/", {"blind_answer": "yes"}).json()["id"] for c in (first, second)
    ]
    # when the first reviewer approves while the second is still on it (the test client is authenticated
    # without a query): the review, read through the reviewer's own reviews, and the item, locked in one
    # query that is also the scope check; the review written, the assignment done, the item's reviews
    # with their assigned count (one pending: no policy, no reason taxonomy for an approval); the
    # answer shows the key of the item it locked. It was 13: the count, the policy and the taxonomy
    # were read on every decision, the answer read the item again, the review was read before it was
    # locked, and the review and the item were locked apart.
    with django_assert_num_queries(4 + 2):  # + SAVEPOINT / RELEASE: the test runs inside a transaction
        assert first.post(f"/api/reviews/{reviews[0]}/decision/", {"decision": "approve"}).status_code == 200
    assert Item.objects.get(id=item.id).state == Item.State.IN_REVIEW
    # then the second approval settles it, against the policy of the item's project: the same four and
    # the policy; the lifecycle's move (item locked again, its marks locked to check them, the item
    # written, the event) with its savepoint; no reason taxonomy (every vote approves) and no relock of
    # the marks (approved holds them as in review did)
    with django_assert_num_queries(4 + 2 + 1 + 2 + 4):
        assert second.post(f"/api/reviews/{reviews[1]}/decision/", {"decision": "approve"}).status_code == 200
    assert Item.objects.get(id=item.id).state == Item.State.APPROVED
    assert all(m.locked for m in item.marks.all())


def test_a_decision_while_the_other_reviewer_has_not_answered_reads_no_policy(
    item, reviewer, second_reviewer, api, django_assert_num_queries
) -> None:  # type: ignore[no-untyped-def]
    # given one of the item's two reviewers answered, the other not yet (no review of theirs exists)
    client = api(reviewer)
    answered = client.post(f"/api/review/items/{item.id}/answer/", {"blind_answer": "yes"}).json()["id"]
    # when they approve: the lock (the scope check too), the two writes, the reviews with the number
    # of reviewers assigned, which says one is still to come before the policy is asked
    with django_assert_num_queries(4 + 2):
        assert client.post(f"/api/reviews/{answered}/decision/", {"decision": "approve"}).status_code == 200
    assert Item.objects.get(id=item.id).state == Item.State.IN_REVIEW


def test_a_decision_finds_only_the_reviewers_own_review_in_their_projects(item, reviewer, second_reviewer, api) -> None:  # type: ignore[no-untyped-def]
    # given the first reviewer's answered review
    review = api(reviewer).post(f"/api/review/items/{item.id}/answer/", {"blind_answer": "yes"}).json()["id"]
    approve = {"decision": "approve"}
    # then another reviewer deciding it, or an id that is nobody's, is not found, and nothing is written
    assert api(second_reviewer).post(f"/api/reviews/{review}/decision/", approve).status_code == 404
    assert api(second_reviewer).post(f"/api/reviews/{review}/decision/", {"decision": "?"}).status_code == 404
    assert api(reviewer).post(f"/api/reviews/{review}/decision/", {"decision": "?"}).status_code == 400
    assert api(reviewer).post(f"/api/reviews/{review + 10_000}/decision/", approve).status_code == 404
    # and once the reviewer leaves the item's project, their own review is not found either
    ProjectMembership.objects.filter(user=reviewer, project_id=item.scene.project_id).delete()
    assert api(reviewer).post(f"/api/reviews/{review}/decision/", approve).status_code == 404
    assert Review.objects.get(id=review).decision == Review.Decision.PENDING
    assert not ReviewAssignment.objects.filter(item=item, done_at__isnull=False).exists()
    # back in the project, the decision goes through
    ProjectMembership.objects.create(user=reviewer, project_id=item.scene.project_id, role="reviewer")
    assert api(reviewer).post(f"/api/reviews/{review}/decision/", approve).status_code == 200


def test_a_blind_step_reads_its_item_once_and_the_answer_locks_it_with_the_assignment(
    item, reviewer, second_reviewer, api, django_assert_num_queries
) -> None:  # type: ignore[no-untyped-def]
    client = api(reviewer)
    client.get("/api/review/queue/")  # the user's roles, loaded once and cached afterwards
    # when the reviewer opens the item before answering: the assignment with its item and scene, and
    # whether they answered, in one query (not a second for a review that is not there)
    with django_assert_num_queries(1):
        blind = client.get(f"/api/review/items/{item.id}/").json()
    assert (blind["review"], "answer" in blind, "mark_ids" in blind) == (None, False, False)
    # and answers: the same read, locking the item (the scope check and the lock in one query), and
    # the review written, with no savepoint of its own (a second answer's conflict rolls back the
    # answer's transaction, here its savepoint: the test's SAVEPOINT / RELEASE)
    with django_assert_num_queries(1 + 1 + 2):
        answered = client.post(f"/api/review/items/{item.id}/answer/", {"blind_answer": "yes"})
    assert (answered.status_code, answered.json()["answer_key"]) == (201, "yes")
    # then the item with their review (which knows its item: the key is read from it) and the marks
    with django_assert_num_queries(3):
        after = client.get(f"/api/review/items/{item.id}/").json()
    assert (after["review"]["id"], after["review"]["answer_key"]) == (answered.json()["id"], "yes")
    assert after["mark_ids"] == sorted(m.id for m in item.marks.all())
    # and a second answer is a conflict, with nothing written
    again = client.post(f"/api/review/items/{item.id}/answer/", {"blind_answer": "no"})
    assert again.status_code == 409 and Review.objects.filter(item=item).count() == 1
