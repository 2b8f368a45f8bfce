"""The review flow by hand, in Chromium: two assigned reviewers answer an item blind from its model
view and disagree; an adjudicator rejects it with a reason on the mark; the annotator sees the
reason on that mark, fixes the mark and revises the item; fresh reviewers approve revision 2; an
admin reads both rounds and the audit trail."""

from __future__ import annotations

import pytest

from annotator.access.roles import ADJUDICATOR
from annotator.models import Item, Scene
from review.models import ItemEvent
from tests.e2e.workspace_helpers import _api_marks, _drag_image, _item_in_review, _li, _open, _saved, _seek, _select

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _state(item_id: int) -> str:
    return Item.objects.get(id=item_id).state


def _blind_answer(page, item_id: int, key: str, screenshot=None, name: str = "") -> None:  # type: ignore[no-untyped-def]
    """From the queue, N opens the first item; a digit picks the option; Enter commits."""
    page.goto("/review/")
    page.keyboard.press("n")
    page.wait_for_url(f"**/review/items/{item_id}/")
    # the model view: the rendered image with the item's marks drawn (the job ran when it was
    # compiled), or while it renders, the same shapes drawn over the satellite image in the page
    page.wait_for_selector("#model-view[data-has-files='1'] #mv-img, #mv-image svg.mv-overlay .mv-shape")
    page.wait_for_function(
        "document.getElementById('mv-img').complete && document.getElementById('mv-img').naturalWidth > 0"
    )
    page.wait_for_function("document.getElementById('mv-video').readyState >= 1")
    text = page.inner_text("main")
    assert "Key:" not in text and "In Review" not in text  # blind: no key, no state
    if screenshot:
        screenshot(page, name)
    page.keyboard.press(key)
    page.keyboard.press("Enter")
    page.wait_for_selector("#verdict")


def test_disagree_adjudicate_see_the_reason_revise_and_approve(scene: Scene, login, make_user, taxonomy, screenshot):  # type: ignore[no-untyped-def]
    # given an item in review (key "yes"): the balancer gave it to "rev" and "rev1"
    make_user("judge", ADJUDICATOR)
    region, _, item_id = _item_in_review(scene)
    assigned = sorted(Item.objects.get(id=item_id).review_assignments.values_list("reviewer__username", flat=True))
    assert assigned == ["rev", "rev1"]

    # rev answers "yes" blind (key 1) and approves with A
    rev = login("rev")
    _blind_answer(rev, item_id, "1", screenshot, "01-blind-model-view")
    assert "Key: yes" in rev.inner_text("#verdict")
    rev.wait_for_function(
        "document.getElementById('workspace-embed').contentDocument?.getElementById('workspace')?.dataset.ready === '1'"
    )
    screenshot(rev, "02-key-beside-workspace")
    rev.keyboard.press("a")
    rev.wait_for_url("**/review/")  # the queue is empty: back to it
    assert _state(item_id) == "in_review"

    # rev1 answers "no" (key 2), rejects with R, a reason and a comment on the mark
    rev1 = login("rev1")
    _blind_answer(rev1, item_id, "2")
    rev1.keyboard.press("r")
    rev1.wait_for_function("document.activeElement && document.activeElement.name === 'reasons'")
    rev1.check("input[name=reasons][value=mark_misplaced]")
    rev1.fill("#comment", "The island reaches further north-east")
    rev1.select_option("#anchor_mark", str(region.id))
    screenshot(rev1, "03-reject-with-reasons")
    rev1.click("#decision-submit")
    rev1.wait_for_url("**/review/")
    assert _state(item_id) == "in_adjudication"  # they disagree

    # the adjudicator reads both reviews and rejects, finally, with a reason on the mark
    judge = login("judge")
    judge.goto("/review/adjudication/")
    judge.click(f"a[href='/review/adjudication/{item_id}/']")
    table = judge.inner_text(".reviews-table")
    assert "rev" in table and "Mark misplaced" in table and "north-east" in table
    judge.wait_for_function(
        "document.getElementById('workspace-embed').contentDocument?.getElementById('review-banner')?.dataset.itemId"
    )  # the embedded workspace read the item through the adjudication API and framed its mark
    assert judge.evaluate(
        "[...document.getElementById('workspace-embed').contentWindow.Skymark.workspace.map.highlighted]"
    ) == [region.id]
    judge.check("#decision-reject")
    judge.check("input[name=reasons][value=mark_misplaced]")
    judge.fill("#comment", "Redraw the island to its kerb")
    judge.select_option("#anchor_mark", str(region.id))
    judge.fill("#anchor_time_s", "3")
    screenshot(judge, "04-adjudication")
    judge.click("#adjudication-submit")
    judge.wait_for_url("**/review/adjudication/")
    assert _state(item_id) == "rejected"

    # the annotator sees the reasons on the mark, moves its corner and revises the item
    ann = login("ann")
    _open(ann, scene.id)
    ann.wait_for_selector(f"{_li(ann, region.id)} .mk-flag")
    feedback = ann.inner_text(f"{_li(ann, region.id)} .mk-feedback >> nth=0") + ann.inner_text("#feedback")
    assert "Mark misplaced" in feedback and "Redraw the island to its kerb" in feedback
    screenshot(ann, "05-reason-on-the-mark")
    _seek(ann, 3.0)
    _select(ann, region.id)
    _drag_image(ann, (1040, 470), (1100, 420))
    _saved(ann)
    assert next(m for m in _api_marks(ann, scene.id) if m["id"] == region.id)["version"] == 2
    ann.click(f"#items-list li[data-item-id='{item_id}'] button.revise-item")
    ann.wait_for_selector(f"#items-list li[data-item-id='{item_id}'][data-state=draft][data-revision='2']")
    ann.click(f"#items-list li[data-item-id='{item_id}'] button.submit-item")
    ann.wait_for_selector(f"#items-list li[data-item-id='{item_id}'][data-state=in_review]")
    screenshot(ann, "06-revision-2-submitted")

    # revision 2 goes to a reviewer who has not seen the item, and one more; both approve
    item = Item.objects.get(id=item_id)
    fresh = sorted(item.review_assignments.filter(revision=2).values_list("reviewer__username", flat=True))
    assert fresh == ["rev", "rev2"]
    for username in fresh:
        page = login(username)
        _blind_answer(page, item_id, "1")
        page.keyboard.press("a")
        page.wait_for_url("**/review/")
    assert _state(item_id) == "approved"

    # the admin reads both rounds and the audit trail on the item's record
    ada = login("ada")
    ada.goto(f"/items/{item_id}/record/")
    assert ada.locator(".round").count() == 2
    assert "Adjudicated: Reject" in ada.inner_text("#revision-1")
    actions = ada.eval_on_selector_all("#audit-table tr[data-action]", "rows => rows.map(r => r.dataset.action)")
    assert actions == ["create", "submit", "escalate", "adjudicate_reject", "revise", "submit", "approve"]
    assert list(ItemEvent.objects.filter(item_id=item_id).values_list("action", flat=True)) == actions
    screenshot(ada, "07-record-and-audit-trail", full_page=True)

    # and the dashboard counts the rounds: one rejected of two settled, for the reason named
    ada.goto("/review/dashboard/")
    assert "50.0 %" in ada.inner_text("#rejection-per-task")
    assert "Mark misplaced" in ada.inner_text("#rejection-per-reason")
    screenshot(ada, "08-dashboard", full_page=True)
    ada.click("#settings-link")
    ada.wait_for_selector("#reasons-table tr[data-code=mark_misplaced]")
    screenshot(ada, "09-settings", full_page=True)
    for page in (rev, rev1, judge, ann, ada):
        assert page.js_errors == []
