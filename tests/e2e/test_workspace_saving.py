"""Saving in the workspace: the offline queue and optimistic-concurrency conflicts."""

from __future__ import annotations

import json

import pytest

from annotator.models import Scene
from tests.e2e.workspace_helpers import STATE, _api_marks, _click_image, _li, _open, _polygon, _saved, _select

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_offline_edits_are_kept_and_sent_when_the_connection_returns(scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    region = _polygon(scene)
    page = login("ann")
    _open(page, scene.id)
    page.context.set_offline(True)
    page.click("#tool-point")
    page.fill("#mark-label", "lamppost")
    _click_image(page, 400, 400)
    page.wait_for_function(f"{STATE} === 'offline'")
    queued = page.evaluate("Object.entries(localStorage).filter(([k]) => k.startsWith('skymark:pending'))")
    assert len(queued) == 1 and json.loads(queued[0][1])["queue"][0]["op"] == "create"
    assert "unsaved" in page.inner_text("#marks-list li[data-kind=point]")
    screenshot(page, "offline")
    page.context.set_offline(False)
    _saved(page)
    assert {m["label"] for m in _api_marks(page, scene.id)} == {"central island", "lamppost"}

    # the server cannot be reached while edits are made; the page is reloaded before they are sent
    page.route("**/api/**", lambda route: route.abort() if route.request.method != "GET" else route.continue_())
    page.keyboard.press("v")
    _select(page, region.id)
    page.fill("#fact-count", "7")
    page.click("#tool-point")
    page.fill("#mark-label", "tree")
    _click_image(page, 700, 700)
    page.wait_for_function(f"{STATE} === 'offline'")
    page.reload()
    page.wait_for_function("document.getElementById('workspace').dataset.ready === '1'")
    assert "unsaved" in page.inner_text(f"{_li(page, region.id)}")
    assert page.locator("#marks-list li[data-label=tree]").count() == 1
    page.unroute("**/api/**")
    page.evaluate("window.dispatchEvent(new Event('online'))")
    _saved(page)
    marks = {m["label"]: m for m in _api_marks(page, scene.id)}
    assert set(marks) == {"central island", "lamppost", "tree"}
    assert marks["central island"]["facts"]["count"] == 7 and marks["central island"]["version"] == 2
    assert page.js_errors == []


def test_a_stale_edit_shows_the_conflict_and_either_side_can_win(scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    region = _polygon(scene)
    first, second = login("ann"), login("ann")
    for page in (first, second):
        _open(page, scene.id)
        _select(page, region.id)
    first.fill("#mark-label", "roundabout")
    _saved(first)
    second.fill("#fact-count", "3")
    second.wait_for_function(f"{STATE} === 'conflict'")
    assert second.is_visible("#conflict") and "version 2" in second.inner_text("#conflict")
    assert "facts" in second.inner_text("#conflict-diff")
    screenshot(second, "conflict")
    second.click("#conflict-theirs")
    second.wait_for_function(f"{STATE} !== 'conflict'")
    second.wait_for_function("document.getElementById('mark-label').value === 'roundabout'")
    assert second.input_value("#fact-count") == ""
    [current] = _api_marks(second, scene.id)
    assert (current["label"], current["version"], current["facts"]) == ("roundabout", 2, {"visible": True})

    first.fill("#mark-label", "central island")
    _saved(first)
    second.fill("#fact-count", "5")
    second.wait_for_function(f"{STATE} === 'conflict'")
    second.click("#conflict-mine")
    _saved(second)
    [current] = _api_marks(second, scene.id)
    assert (current["label"], current["version"], current["facts"]["count"]) == ("central island", 4, 5)
    assert first.js_errors == [] and second.js_errors == []


PENDING = "Object.keys(localStorage).filter((k) => k.startsWith('skymark:pending')).length"


def _draw_point_offline(page, label: str, x: float) -> None:  # type: ignore[no-untyped-def]
    page.click("#tool-point")
    page.fill("#mark-label", label)
    _click_image(page, x, 400)
    page.wait_for_function(f"{STATE} === 'offline'")


def test_two_tabs_keep_their_own_unsaved_edits_and_a_closed_tabs_are_taken_over(scene: Scene, login) -> None:  # type: ignore[no-untyped-def]
    first = login("ann")
    second = first.context.new_page()
    for page in (first, second):
        _open(page, scene.id)
    first.context.set_offline(True)
    _draw_point_offline(first, "lamppost", 300)
    _draw_point_offline(second, "tree", 600)
    # each tab keeps its own queue: neither write wiped the other's
    assert first.evaluate(PENDING) == 2
    first.close()  # closed before it could save: its edit waits in the browser

    first.context.set_offline(False)
    _saved(second)
    third = first.context.new_page()
    _open(third, scene.id)
    # a page of the same scene still open, or the new one, takes over the closed tab's queue
    third.wait_for_function(
        f"fetch('/api/scenes/{scene.id}/marks/').then(r => r.json()).then(b => b.count >= 2)", polling=250
    )
    third.wait_for_function(f"{PENDING} === 0")
    second.reload()
    second.wait_for_function("document.getElementById('workspace').dataset.ready === '1'")
    labels = sorted(m["label"] for m in _api_marks(third, scene.id))
    assert labels == ["lamppost", "tree"]  # each once: nobody sent another tab's create again
    assert third.evaluate(PENDING) == 0
    assert sorted(second.eval_on_selector_all("#marks-list li", "els => els.map(e => e.dataset.label)")) == labels


def test_without_web_locks_a_recent_queue_of_another_tab_is_left_alone(scene: Scene, login) -> None:  # type: ignore[no-untyped-def]
    # e.g. a server reached over plain HTTP on another host: not a secure context, so no Web Locks
    first = login("ann")
    first.context.add_init_script("Object.defineProperty(Navigator.prototype, 'locks', { get: () => undefined })")
    _open(first, scene.id)
    assert first.evaluate("navigator.locks === undefined")
    first.context.set_offline(True)
    _draw_point_offline(first, "lamppost", 300)
    first.close()
    first.context.set_offline(False)
    second = first.context.new_page()
    _open(second, scene.id)
    # the other tab wrote its queue moments ago and may still be open: adopted only once stale
    assert second.evaluate(PENDING) == 1 and _api_marks(second, scene.id) == []
    second.evaluate(
        "for (const k of Object.keys(localStorage).filter((k) => k.startsWith('skymark:pending'))) {"
        "  const d = JSON.parse(localStorage.getItem(k)); d.beat -= 11 * 60 * 1000;"
        "  localStorage.setItem(k, JSON.stringify(d)); }"
    )
    second.reload()
    second.wait_for_function("document.getElementById('workspace').dataset.ready === '1'")
    _saved(second)
    assert [m["label"] for m in _api_marks(second, scene.id)] == ["lamppost"]
    assert second.evaluate(PENDING) == 0
