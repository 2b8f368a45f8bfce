"""The review pages: the blind step shows the model view and no key; the decision page shows the
key beside the embedded workspace; adjudication, item records (admins and authors), gold and
the dashboards render what the services recorded, to the roles allowed."""

from __future__ import annotations

import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils.html import escape

from annotator.access.roles import ADJUDICATOR
from annotator.models import Item
from review.models import Review
from review.reviewing.adjudication import item_adjudicate
from review.reviewing.gold import gold_mark
from tests.factories import UserFactory
from tests.review.flow import vote

pytestmark = pytest.mark.django_db


@pytest.fixture
def page(client):  # type: ignore[no-untyped-def]
    def as_user(user):  # type: ignore[no-untyped-def]
        client.force_login(user)
        return client

    return as_user


def _shapes(html: str) -> list[dict]:
    found = re.search(r'<script id="mv-shapes" type="application/json">(.*?)</script>', html, re.S)
    assert found, "the page carries no shapes to draw"
    return json.loads(found.group(1))


def test_the_blind_step_shows_the_model_view_and_no_key(item, reviewer, page) -> None:
    client = page(reviewer)
    html = client.get(f"/review/items/{item.id}/").content.decode()
    # the model view: the scene's video and satellite image, the item's mark named as the question names it
    assert f'src="/media/scenes/{item.scene_id}/video"' in html
    assert "/media/satellite/" in html
    [shape] = _shapes(html)
    assert shape["name"] == "roundabout" and shape["geometry"]["type"] == "Polygon"
    # (the page escapes the question: a phrasing may say "the drone's view")
    assert escape(item.question) in html and 'name="blind_answer" value="yes"' in html
    # nothing that gives the answer away: no key, no state, no workspace, no facts
    assert "Key:" not in html and "state-in_review" not in html and "workspace-embed" not in html
    assert "visible" not in json.dumps(_shapes(html))
    assert 'data-stage="blind"' in html


def test_answer_then_decide_through_the_page(item, reviewer, second_reviewer, page) -> None:
    client = page(reviewer)
    answered = client.post(f"/review/items/{item.id}/", {"blind_answer": "yes", "answer_seconds": "7.5"})
    assert answered.status_code == 302
    html = client.get(f"/review/items/{item.id}/").content.decode()
    assert 'id="verdict"' in html and "Key: <strong>yes</strong>" in html
    assert f"/scenes/{item.scene_id}/workspace/?item={item.id}&amp;embed=1" in html
    assert "Mark misplaced" in html and "Ambiguity &amp; clarity" in html  # the taxonomy, grouped
    bad = client.post(f"/review/items/{item.id}/", {"decision": "reject"})
    assert bad.status_code == 400 and "a rejection needs at least one reason" in bad.content.decode()
    done = client.post(
        f"/review/items/{item.id}/",
        {"decision": "reject", "reasons": ["mark_misplaced"], "anchor_time_s": "1.0", "decision_seconds": "3"},
    )
    assert done.status_code == 302 and done["Location"] == f"/review/next/?after={item.id}"
    row = Review.objects.get(reviewer=reviewer)
    assert (row.answer_seconds, row.decision_seconds, row.anchor_time_s) == (7.5, 3.0, 1.0)
    # next: the queue is empty now, so back to it
    assert client.get(done["Location"])["Location"] == "/review/"


def test_the_review_page_is_the_reviewers_own(item, page) -> None:
    outsider = UserFactory(username="r9", roles=["reviewer"])
    assert page(outsider).get(f"/review/items/{item.id}/").status_code == 404
    assert page(item.author).get(f"/review/items/{item.id}/").status_code == 403


def test_queue_page_lists_assignments_in_flat_queries(submit, reviewer, second_reviewer, page) -> None:
    client = page(reviewer)
    submit()
    client.get("/review/")
    with CaptureQueriesContext(connection) as few:
        client.get("/review/")
    for _ in range(5):
        submit()
    with CaptureQueriesContext(connection) as many:
        html = client.get("/review/").content.decode()
    assert len(many.captured_queries) == len(few.captured_queries)
    assert html.count('class="btn small primary" href="/review/items/') == 6


def test_adjudication_page_shows_every_review_and_decides(item, reviewer, second_reviewer, page) -> None:
    vote(item, reviewer, "yes", "approve")
    vote(item, second_reviewer, "no", "reject", ("wrong_key",), comment="it is not seen")
    judge = page(UserFactory(username="judge", roles=[ADJUDICATOR]))
    assert item.uid in judge.get("/review/adjudication/").content.decode()
    html = judge.get(f"/review/adjudication/{item.id}/").content.decode()
    assert "rev1" in html and "rev2" in html and "“it is not seen”" in html and "Wrong answer key" in html
    assert "&amp;as=adjudicator" in html
    refused = judge.post(f"/review/adjudication/{item.id}/", {"decision": "reject", "reason": "not visible"})
    assert refused.status_code == 400 and "a rejection needs at least one reason" in refused.content.decode()
    judge.post(
        f"/review/adjudication/{item.id}/",
        {"decision": "reject", "reason": "not visible", "reasons": ["evidence_not_visible"]},
    )
    assert Item.objects.get(id=item.id).state == "rejected"
    assert page(reviewer).get("/review/adjudication/").status_code == 403


def test_the_record_shows_rounds_reviews_and_the_audit_trail_to_admins(item, reviewer, second_reviewer, admin, page):  # type: ignore[no-untyped-def]
    vote(item, reviewer, "yes", "approve")
    vote(item, second_reviewer, "no", "approve")
    item_adjudicate(item=item, adjudicator=admin, decision="approve", reason="the key holds")
    html = page(admin).get(f"/items/{item.id}/record/").content.decode()
    assert "Revision 1" in html and "rev1" in html and "Adjudicated: Approve" in html
    assert 'id="audit-table"' in html
    for action in ("create", "submit", "escalate", "adjudicate_approve"):
        assert f'data-action="{action}"' in html
    # gold from the record page
    page(admin).post(f"/items/{item.id}/gold/", {"gold": "1"})
    assert hasattr(Item.objects.get(id=item.id), "gold")


def test_authors_read_their_records_without_names_and_others_not_at_all(item, reviewer, second_reviewer, page) -> None:
    vote(item, reviewer, "no", "reject", ("wrong_key",))
    vote(item, second_reviewer, "no", "reject", ("wrong_key",))
    html = page(item.author).get(f"/items/{item.id}/record/").content.decode()
    assert "Reviewer 1" in html and "rev1" not in html and "audit-table" not in html
    # the record names the satellite image the item's marks are drawn on
    image = item.marks.get().satellite_image
    assert f'<strong id="item-image">{image.original_name}</strong>' in html
    other = UserFactory(username="ann9", roles=["annotator"])
    assert page(other).get(f"/items/{item.id}/record/").status_code == 404


def test_items_list_is_for_admins(item, reviewer, admin, page) -> None:
    assert page(reviewer).get("/items/").status_code == 403
    html = page(admin).get("/items/?state=in_review").content.decode()
    assert f"/items/{item.id}/record/" in html
    assert f"/items/{item.id}/record/" not in page(admin).get("/items/?state=approved").content.decode()


def test_dashboard_shows_queues_rejections_agreement_baseline_and_gold(
    submit, reviewer, second_reviewer, admin, page
) -> None:
    # given an approved item made gold, a rejected one, and a reviewer who failed a gold check
    approved = submit()
    vote(approved, reviewer, "yes", "approve")
    vote(approved, second_reviewer, "yes", "approve")
    rejected = submit()
    vote(rejected, reviewer, "no", "reject", ("wrong_key",))
    vote(rejected, second_reviewer, "no", "reject", ("wrong_key", "question_unclear"))
    gold_mark(item=approved, admin=admin)
    assert page(reviewer).get("/review/dashboard/").status_code == 403

    html = page(admin).get("/review/dashboard/").content.decode()
    assert html.count('<svg class="chart"') >= 6
    per_reason = html.split('id="rejection-per-reason"')[1].split("</table>")[0]
    assert re.search(r'data-code="wrong_key">.*?<td class="num">1</td><td class="num">100.0 %', per_reason, re.S)
    per_task = html.split('id="rejection-per-task"')[1].split("</table>")[0]
    assert "Target Visibility" in per_task and "50.0 %" in per_task
    assert 'id="agreement-table"' in html and 'id="baseline-table"' in html
    assert "Overall" in html.split('id="baseline-table"')[1]


def test_my_stats_for_a_reviewer_and_an_annotator(item, reviewer, second_reviewer, annotator, page) -> None:
    vote(item, reviewer, "no", "reject", ("wrong_key",))
    vote(item, second_reviewer, "no", "reject", ("wrong_key",))
    mine = page(reviewer).get("/review/me/").content.decode()
    assert 'id="reviewer-stats"' in mine and 'id="author-stats"' not in mine
    assert re.search(r'id="done-count">1<', mine)
    theirs = page(annotator).get("/review/me/").content.decode()
    assert 'id="author-stats"' in theirs and "Wrong answer key" in theirs and item.uid in theirs


def test_admins_set_the_policy_and_edit_the_taxonomy_in_the_app(reviewer, admin, page) -> None:
    from review.models import RejectionReason, ReviewPolicy

    assert page(reviewer).get("/review/settings/").status_code == 403
    client = page(admin)
    html = client.get("/review/settings/").content.decode()
    assert 'data-code="wrong_key"' in html and 'data-code="professional_relevance"' in html
    # the policy, with its constraints as field messages
    bad = client.post(
        "/review/settings/",
        {"form": "policy", "policy-reviewers_per_item": "2", "policy-gold_rate": "0.9",
         "policy-gold_min_accuracy": "0.8", "policy-gold_min_answers": "5"},
    )  # fmt: skip
    assert bad.status_code == 400 and ReviewPolicy.objects.get().gold_rate == 0.1
    client.post(
        "/review/settings/",
        {"form": "policy", "policy-reviewers_per_item": "3", "policy-gold_rate": "0.2",
         "policy-gold_min_accuracy": "0.9", "policy-gold_min_answers": "4"},
    )  # fmt: skip
    policy = ReviewPolicy.objects.get()
    assert (policy.reviewers_per_item, policy.gold_rate, policy.admins_adjudicate, policy.updated_by) == (
        3, 0.2, False, admin,
    )  # fmt: skip
    # a reason renamed and retired, and a new one added at the end
    client.post(
        "/review/settings/",
        {"form": "r-triviality", "r-triviality-label": "Too easy", "r-triviality-description": "d",
         "r-triviality-group": "criterion", "r-triviality-position": "10"},
    )  # fmt: skip
    assert RejectionReason.objects.filter(code="triviality", label="Too easy", active=False).exists()
    client.post(
        "/review/settings/",
        {"form": "new", "new-code": "blurry_video", "new-label": "Video too blurry", "new-group": "item"},
    )
    new = RejectionReason.objects.get(code="blurry_video")
    assert new.active and new.position == RejectionReason.objects.exclude(code="blurry_video").count()
    codes = [r["code"] for r in __import__("review.reviewing.reasons", fromlist=["x"]).reasons_active().values()]
    assert "triviality" not in codes and codes[-1] == "blurry_video"
