"""Bulk actions of the Items panel in Chromium: items chosen with checkboxes (or all the filter
shows), submitted in one request, each refusal named on its row and in the summary, and a stale
item compiled again from the same panel."""

from __future__ import annotations

from playwright.sync_api import expect

from annotator.compiling.lifecycle import item_submit
from annotator.compiling.services import item_compile
from annotator.marking.services import mark_update
from annotator.models import Item, Scene
from tests.e2e.workspace_helpers import _console_errors, _mark, _open


def _box(x0: float, y0: float, x1: float, y1: float) -> dict:
    return {"type": "Polygon", "coordinates": [[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]]}


def test_select_all_drafts_submit_them_and_recompile_the_refused_one(scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    # given three regions with a draft each, and a fourth item already in review
    ann = scene.assignments.get().annotator
    regions = [
        _mark(scene, "polygon", _box(300 + 200 * i, 300, 420 + 200 * i, 400), label, 1.0, 4.0, facts={"visible": True})
        for i, label in enumerate(["tower", "lake", "park", "field"])
    ]
    drafts = [item_compile(user=ann, task="target_visibility", mark_ids=[r.id]) for r in regions]
    item_submit(item=drafts[3], actor=ann)
    page = login("ann")
    console = _console_errors(page)
    _open(page, scene.id)
    page.wait_for_selector(f"#items-list li[data-item-id='{drafts[0].id}']")

    # and, after the page loaded, the third region is reshaped elsewhere (its draft is stale on the server)
    stale = drafts[2]
    region = regions[2]
    region.refresh_from_db()
    mark_update(mark=region, version=region.version, changes={"geometry": _box(700, 300, 860, 420)})

    # when the annotator shows the drafts, selects all of them and submits
    page.get_by_test_id("items-filter").select_option("draft")
    page.wait_for_function("document.querySelectorAll('#items-list > li').length === 3")
    page.get_by_test_id("select-all").check()
    submit = page.get_by_test_id("bulk-submit")
    assert submit.inner_text().split() == ["Submit", "3"]
    with page.expect_response(lambda r: r.url.endswith("/api/items/bulk/")) as answer:
        submit.click()
    assert answer.value.status == 200

    # then two went to review and the stale one is refused, named with the reason in the summary and on its row
    summary = page.get_by_test_id("bulk-summary")
    reason = "a mark of this item changed after it was compiled; compile it again before it goes on"
    expect(summary).to_have_text(f"Submitted 2 items for review; 1 item refused — {stale.uid}: {reason}.")
    assert [Item.objects.get(id=d.id).state for d in drafts] == ["in_review", "in_review", "draft", "in_review"]
    row = page.locator(f"#items-list li[data-item-id='{stale.id}']")
    expect(row.get_by_test_id("item-refusal")).to_have_text(reason)
    # and the list, read again, shows the refused draft as stale and still selected
    page.wait_for_selector(f"#items-list li[data-item-id='{stale.id}'][data-stale='1']")
    assert row.get_by_test_id("item-select").is_checked()
    screenshot(page, "1-submitted")

    # when it is compiled again from the bulk bar
    recompile = page.get_by_test_id("bulk-recompile")
    page.wait_for_function("document.querySelector('[data-testid=bulk-recompile] .n').textContent === '1'")
    with page.expect_response(lambda r: r.url.endswith("/api/items/bulk/")) as answer:
        recompile.click()

    # then a fresh draft of the same task replaces it
    body = answer.value.json()
    fresh = body["results"][0]["item"]
    assert (body["done"], fresh["task"], fresh["stale"]) == (1, "target_visibility", False)
    expect(summary).to_have_text("Compiled 1 item again from the current marks.")
    page.wait_for_selector(f"#items-list li[data-item-id='{fresh['id']}']")
    assert not Item.objects.filter(id=stale.id).exists()
    screenshot(page, "2-recompiled")
    assert console == [] and page.js_errors == []
