"""The revision path in Chromium: an item is rejected with a reason; its author opens the
workspace, revises it unchanged and is refused on submit with what to change; edits the fact of
the region an approved item shares (the edit goes to a copy: copy on write), compiles the revision
again and submits it. The approved item keeps its mark and its key."""

from __future__ import annotations

import pytest

from annotator.compiling.lifecycle import UNCHANGED_MESSAGE, item_submit
from annotator.compiling.services import item_compile
from annotator.models import Item, Mark, Scene
from review.reviewing.services import review_decide, review_start
from tests.e2e.workspace_helpers import _api_marks, _li, _open, _polygon, _saved, _select

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _decide(item: Item, decision: str, answer: str, **kw) -> None:  # type: ignore[no-untyped-def]
    """Every reviewer the item went to answers blind and decides the same way."""
    for assignment in item.review_assignments.filter(revision=item.revision).select_related("reviewer"):
        review = review_start(item=item, reviewer=assignment.reviewer, blind_answer=answer)
        review_decide(review=review, reviewer=assignment.reviewer, decision=decision, **kw)


def _row(item_id: int) -> str:
    return f"#items-list li[data-item-id='{item_id}']"


def test_a_rejected_item_is_fixed_through_a_copy_of_the_shared_mark(scene: Scene, login, taxonomy, screenshot):  # type: ignore[no-untyped-def]
    # given a region said to be seen in the video, an approved item and a rejected item built on it
    region = _polygon(scene)
    ann = scene.assignments.get().annotator
    approved = item_compile(user=ann, task="target_visibility", mark_ids=[region.id], seed=1)
    item_submit(item=approved, actor=ann)
    _decide(approved, "approve", "yes", reasons=[])
    rejected = item_compile(user=ann, task="target_visibility", mark_ids=[region.id], seed=2)
    item_submit(item=rejected, actor=ann)
    _decide(
        rejected,
        "reject",
        "no",
        reasons=["evidence_not_visible"],
        comment="The island is hidden under the trees the whole time",
        anchor_mark_id=region.id,
    )
    assert [Item.objects.get(id=i).state for i in (approved.id, rejected.id)] == ["approved", "rejected"]
    assert Mark.objects.get(id=region.id).locked

    # the author opens the workspace: the reasons are on the mark, and the item offers Revise and Withdraw
    page = login("ann")
    _open(page, scene.id)
    page.wait_for_selector(f"{_li(page, region.id)} .mk-flag")
    assert "hidden under the trees" in page.inner_text("#feedback")
    page.wait_for_selector(f"{_row(rejected.id)} button.revise-item")
    assert page.locator(f"{_row(rejected.id)} button.withdraw-item").count() == 1
    screenshot(page, "01-rejected-with-reason")

    # revising without changing anything gives the same item; submitting it is refused with the sentence
    page.click(f"{_row(rejected.id)} button.revise-item")
    page.wait_for_selector(f"{_row(rejected.id)}[data-state=draft][data-revision='2']")
    page.click(f"{_row(rejected.id)} button.submit-item")
    page.wait_for_function("document.getElementById('status').dataset.state === 'error'")
    assert UNCHANGED_MESSAGE in page.inner_text("#status")
    # the sentence stays on the item's row, whole, where the author acts on it
    assert page.inner_text(f"{_row(rejected.id)} [data-testid=item-refusal]") == UNCHANGED_MESSAGE
    assert Item.objects.get(id=rejected.id).state == "draft"
    screenshot(page, "02-unchanged-refused")

    # the shared region is locked, yet its fact field is enabled: an edit goes to a copy
    _select(page, region.id)
    assert page.is_enabled("#mark-visible")
    assert "copy" in page.inner_text("#editor-hint")
    page.select_option("#mark-visible", "no")
    _saved(page)
    copy = Mark.objects.get(copied_from=region.id)
    page.wait_for_function(f"Skymark.workspace.ws.selectedId === {copy.id}")
    assert copy.facts == {"visible": False}
    listed = {m["id"]: m for m in _api_marks(page, scene.id)}
    assert (listed[region.id]["facts"], listed[region.id]["locked"]) == ({"visible": True}, True)
    assert listed[copy.id]["copied_from"] == region.id
    screenshot(page, "03-edit-went-to-a-copy")

    # the draft revision is stale now; compiled again it reads the copy and has the new key
    page.wait_for_selector(f"{_row(rejected.id)}[data-stale='1'] [data-testid=recompile]")
    page.click(f"{_row(rejected.id)} [data-testid=recompile]")
    page.wait_for_selector(f"{_row(rejected.id)}[data-state=draft][data-stale=''] button.submit-item")
    assert page.locator(f"{_row(rejected.id)} [data-testid=item-refusal]").count() == 0
    assert page.inner_text(f"{_row(rejected.id)} .item-answer") == "no"
    page.click(f"{_row(rejected.id)} button.submit-item")
    page.wait_for_selector(f"{_row(rejected.id)}[data-state=in_review]")
    screenshot(page, "04-revision-2-submitted")

    # the revision went on with the copy; the approved item is as it was
    revised = Item.objects.get(id=rejected.id)
    assert (revised.revision, revised.answer, list(revised.marks.values_list("id", flat=True))) == (2, "no", [copy.id])
    kept = Item.objects.get(id=approved.id)
    assert (kept.state, kept.answer, list(kept.marks.values_list("id", flat=True))) == ("approved", "yes", [region.id])
    assert (Mark.objects.get(id=region.id).facts, Mark.objects.get(id=region.id).version) == ({"visible": True}, 1)
    assert page.js_errors == []
