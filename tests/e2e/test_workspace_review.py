"""Review overlays in the workspace: feedback on rejected marks, the read-only reviewer view, and the
highlighted item (the CVAA overlay has its own tests in test_workspace_cvaa.py)."""

from __future__ import annotations

import pytest

from annotator.compiling.lifecycle import item_submit
from annotator.compiling.services import item_compile
from annotator.models import Item, Scene
from review.reviewing.services import review_decide, review_start
from tests.e2e.workspace_helpers import _api_marks, _item_in_review, _li, _mark, _now, _open, _polygon

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_rejected_item_feedback_is_shown_on_its_marks(scene: Scene, login, screenshot, taxonomy) -> None:  # type: ignore[no-untyped-def]
    region = _polygon(scene)
    other = _mark(scene, "point", {"type": "Point", "coordinates": [500, 500]}, "lamppost", 1.0)
    ann = scene.assignments.get().annotator
    item = item_compile(user=ann, task="target_visibility", mark_ids=[region.id])
    item_submit(item=item, actor=ann)
    # both reviewers it went to reject it; one anchors the comment on the region
    for name, comment in (("rev", "The island is larger than this"), ("rev1", "")):
        rev = type(ann).objects.get(username=name)
        review = review_start(item=item, reviewer=rev, blind_answer="yes")
        review_decide(
            review=review,
            reviewer=rev,
            decision="reject",
            reasons=["mark_misplaced"],
            comment=comment,
            anchor_mark_id=region.id if comment else None,
        )
    page = login("ann")
    _open(page, scene.id)
    page.wait_for_selector(f"{_li(page, region.id)} .mk-flag")
    text = page.inner_text(f"{_li(page, region.id)} .mk-feedback")
    assert "Mark misplaced" in text and "The island is larger than this" in text
    assert page.locator(f"{_li(page, other.id)} .mk-flag").count() == 0
    assert page.evaluate(f"Skymark.workspace.map.flags.has({region.id})")
    screenshot(page, "feedback")
    assert page.js_errors == []


def _answered(username: str, item_id: int) -> None:
    """The reviewer answers the item blind: only then are its marks theirs to see."""
    item = Item.objects.get(id=item_id)
    review_start(item=item, reviewer=type(item.author).objects.get(username=username), blind_answer="yes")


def test_before_the_blind_answer_the_workspace_shows_none_of_the_items_marks(scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    region, _, item_id = _item_in_review(scene)
    page = login("rev")
    _open(page, scene.id, f"?item={item_id}")
    assert page.locator(f"{_li(page, region.id)}").count() == 0
    assert page.evaluate(f"Skymark.workspace.map.marks.getFeatureById({region.id}) === null")
    assert f"#{region.id}" not in page.inner_text("#review-banner")
    screenshot(page, "reviewer-blind")
    assert page.js_errors == []


def test_reviewer_opens_the_workspace_read_only(scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    region, _, item_id = _item_in_review(scene)
    _answered("rev", item_id)
    page = login("rev")
    _open(page, scene.id, f"?item={item_id}")
    assert page.is_visible("#read-only")
    assert page.locator("#tools").count() == 0 and page.locator("#editor").count() == 0
    assert page.locator(f"{_li(page, region.id)}").count() == 1
    assert page.locator("#marks-list .mk-del, #marks-list select").count() == 0
    assert page.is_visible("#review-banner")
    page.keyboard.press("Delete")
    page.keyboard.press("p")
    page.wait_for_timeout(300)
    assert [m["version"] for m in _api_marks(page, scene.id)] == [1]
    screenshot(page, "reviewer")
    assert page.js_errors == []


def test_reviewer_sees_the_reviewed_items_marks_highlighted(scene: Scene, login) -> None:  # type: ignore[no-untyped-def]
    region, _, item_id = _item_in_review(scene)
    _answered("rev", item_id)
    page = login("rev")
    _open(page, scene.id, f"?item={item_id}")
    assert "highlight" in page.get_attribute(_li(page, region.id), "class")


def test_item_under_review_is_highlighted(scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    region, other, item_id = _item_in_review(scene)
    page = login("ada")
    _open(page, scene.id, f"?item={item_id}")
    assert page.is_visible("#read-only")
    assert "highlight" in page.get_attribute(_li(page, region.id), "class")
    assert "highlight" not in page.get_attribute(_li(page, other.id), "class")
    assert page.evaluate("[...Skymark.workspace.map.highlighted]") == [region.id]
    assert f"#{region.id}" in page.inner_text("#review-banner")
    assert _now(page) == pytest.approx(2.0, abs=0.01)  # the cursor goes to the item's first mark
    screenshot(page, "admin-item-highlight")
    assert page.js_errors == []
