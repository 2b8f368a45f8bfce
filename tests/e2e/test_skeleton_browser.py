"""The walking skeleton by hand, in Chromium: draw, compile, submit; two blind reviews; release."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.core.files.storage import default_storage

from annotator.models import Item, Scene
from review.models import Release

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _click_image(page, x: float, y: float, *, double: bool = False) -> None:  # type: ignore[no-untyped-def]
    """Click the satellite image at pixel (x, y), y down, wherever the map has put it."""
    px, py = page.evaluate(f"Skymark.workspace.pixelOf({x}, {y})")
    box = page.locator("#map").bounding_box()
    (page.mouse.dblclick if double else page.mouse.click)(box["x"] + px, box["y"] + py)
    page.wait_for_timeout(150)


def _seek(page, t: float) -> None:  # type: ignore[no-untyped-def]
    page.evaluate(f"document.getElementById('video').currentTime = {t}")
    page.wait_for_function(
        f"Math.abs(document.getElementById('video').currentTime - {t}) < 0.01 "
        "&& !document.getElementById('video').seeking"
    )
    page.wait_for_timeout(150)


def _marks(page, scene_id: int) -> list[dict]:  # type: ignore[no-untyped-def]
    return page.evaluate(f"fetch('/api/scenes/{scene_id}/marks/?limit=500').then(r => r.json()).then(b => b.results)")


def _draw_point_and_region(page, scene: Scene) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"/scenes/{scene.id}/workspace/")
    page.wait_for_function("document.getElementById('video').readyState >= 1")
    page.click("#tool-point")
    _seek(page, 1.0)
    page.fill("#mark-label", "roundabout")  # labels come from the project's label set
    _click_image(page, 960, 540)
    page.wait_for_selector("#marks-list li[data-kind=point]")
    page.fill("#mark-label", "central island")
    page.select_option("#mark-visible", "yes")
    _seek(page, 2.0)
    page.click("#anchor-start")
    _seek(page, 6.0)
    page.click("#anchor-end")
    page.click("#tool-polygon")
    for x, y in [(880, 470), (1040, 470), (1040, 610)]:
        _click_image(page, x, y)
    _click_image(page, 880, 610, double=True)
    page.wait_for_selector("#marks-list li[data-kind=polygon]")
    page.wait_for_function("document.getElementById('status').dataset.state === 'saved'")


def _review(page, item_id: int, answer: str) -> None:  # type: ignore[no-untyped-def]
    page.goto("/review/")
    page.click(f"a[href='/review/items/{item_id}/']")
    assert "Key:" not in page.inner_text("main")  # blind until answered
    page.check(f"input[name=blind_answer][value={answer}]")
    page.click("#blind-submit")
    page.wait_for_selector("#verdict")
    page.check("#decision-approve")
    page.click("#decision-submit")
    page.wait_for_url("**/review/")


def test_annotate_review_release_in_the_browser(scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    # the annotator sees the assigned scene and draws a point and a visible region
    annotator = login("ann")
    assert "Saro" in annotator.inner_text("main")
    _draw_point_and_region(annotator, scene)
    screenshot(annotator, "01-workspace-drawn")
    saved = _marks(annotator, scene.id)
    by_kind = {m["kind"]: m for m in saved}
    assert set(by_kind) == {"point", "polygon"}
    assert by_kind["point"]["time_start"] == pytest.approx(1.0) and by_kind["point"]["time_end"] is None
    assert (by_kind["polygon"]["time_start"], by_kind["polygon"]["time_end"]) == pytest.approx((2.0, 6.0))
    assert by_kind["polygon"]["facts"] == {"visible": True}
    x, y = by_kind["point"]["geometry"]["coordinates"]
    assert abs(x - 960) < 3 and abs(y - 540) < 3  # image pixels, y down

    # reload: the same marks come back, and scrubbing dims the region outside 2-6 s
    annotator.reload()
    annotator.wait_for_selector("#marks-list li[data-kind=polygon]")
    assert _marks(annotator, scene.id) == saved
    _seek(annotator, 4.0)
    assert "current" in annotator.get_attribute("#marks-list li[data-kind=polygon]", "class")
    _seek(annotator, 8.0)
    assert "dim" in annotator.get_attribute("#marks-list li[data-kind=polygon]", "class")
    screenshot(annotator, "02-workspace-reloaded-t8")

    # compile the Target Visibility item and submit it
    annotator.click("#marks-list li[data-kind=polygon] [data-action=pick]")
    annotator.wait_for_selector("#task-list li.ready[data-task=target_visibility]")
    annotator.click("#task-list li[data-task=target_visibility] button[data-action=compile]")
    annotator.wait_for_selector("#items-list li[data-state=draft]")
    annotator.click("#items-list li[data-state=draft] button.submit-item")
    annotator.wait_for_selector("#items-list li[data-state=in_review]")
    item = Item.objects.get(scene=scene)
    assert (item.state, item.answer) == ("in_review", "yes")
    screenshot(annotator, "03-workspace-submitted")

    # the two reviewers it was assigned to (least loaded, then by id) answer blind and approve
    assert sorted(item.review_assignments.values_list("reviewer__username", flat=True)) == ["rev", "rev1"]
    for username in ("rev", "rev1"):
        reviewer = login(username)
        _review(reviewer, item.id, "yes")
    item.refresh_from_db()
    assert item.state == "approved"
    assert list(item.reviews.values_list("blind_correct", flat=True)) == [True, True]

    # the admin freezes release 1.0 and downloads its files
    admin = login("ada")
    admin.goto("/releases/")
    admin.fill("#release-version", "1.0")
    # one yes/no item: balancing yes and no keys would hold it back
    admin.uncheck("#release-balance-yes-no")
    admin.click("#release-build")
    admin.wait_for_selector("text=1.0")
    screenshot(admin, "04-release-built", full_page=True)
    release = Release.objects.get(version="1.0")
    items_jsonl = admin.request.get("/releases/1.0/items.jsonl")
    assert items_jsonl.status == 200
    [entry] = [f for f in release.manifest["files"] if f["path"] == "items.jsonl"]
    assert hashlib.sha256(items_jsonl.body()).hexdigest() == entry["sha256"]
    assert json.loads(items_jsonl.text().splitlines()[0])["answer"] == "yes"
    with default_storage.open(release.manifest_file) as fh:
        assert json.loads(fh.read())["items"] == 1
    assert not (annotator.js_errors or admin.js_errors)


def test_two_pages_editing_one_mark_get_a_conflict(scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    page = login("ann")
    _draw_point_and_region(page, scene)
    mark = next(m for m in _marks(page, scene.id) if m["kind"] == "polygon")
    other = login("ann")
    other.goto(f"/scenes/{scene.id}/workspace/")
    other.wait_for_selector("#marks-list li[data-kind=polygon]")
    # the first page changes the mark; the second still holds version 1 and tries to change it too
    page.select_option(f"#marks-list li[data-mark-id='{mark['id']}'] select.mk-visible-edit", "no")
    page.wait_for_function("document.getElementById('status').dataset.state === 'saved'")
    other.select_option(f"#marks-list li[data-mark-id='{mark['id']}'] select.mk-visible-edit", "yes")
    # the stale write is not applied: the page shows the conflict and offers keep mine / take theirs
    other.wait_for_function("document.getElementById('status').dataset.state === 'conflict'")
    assert "changed" in other.inner_text("#status").lower()
    assert other.is_visible("#conflict") and other.is_visible("#conflict-mine") and other.is_visible("#conflict-theirs")
    screenshot(other, "conflict")
    current = next(m for m in _marks(other, scene.id) if m["id"] == mark["id"])
    assert current["facts"] == {"visible": False} and current["version"] == 2
