"""The workspace's one time cursor: scrubbing, the trajectory dot, and keyboard shortcuts."""

from __future__ import annotations

import pytest

from annotator.models import Scene
from tests.e2e.workspace_helpers import (
    _api_marks,
    _click_image,
    _li,
    _mark,
    _now,
    _open,
    _polygon,
    _saved,
    _seek,
    _select,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_scrubbing_dims_marks_and_moves_the_trajectory_dot(scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    point = _mark(scene, "point", {"type": "Point", "coordinates": [960, 540]}, "roundabout", 1.0)
    region = _polygon(scene)
    path = [[300, 800], [500, 800], [500, 600]]
    track = _mark(
        scene, "polyline", {"type": "LineString", "coordinates": path}, "car", 1.0, 3.0, vertex_times=[1, 2, 3]
    )
    page = login("ann")
    _open(page, scene.id)

    _seek(page, 1.5)
    cls = {m.id: page.get_attribute(_li(page, m.id), "class") for m in (point, region, track)}
    assert "current" in cls[point.id] and "dim" in cls[region.id] and "current" in cls[track.id]
    x, y = page.evaluate(f"Skymark.workspace.dotOf({track.id})")
    assert 300 < x < 500 and y == pytest.approx(800, abs=0.5)  # between vertices 1 (t=1) and 2 (t=2)
    assert x == pytest.approx(400, abs=1)
    spans = page.eval_on_selector_all("#tl-lanes .tl-span.current", "els => els.map(e => Number(e.dataset.markId))")
    assert sorted(spans) == sorted([point.id, track.id])
    screenshot(page, "t1.5")

    _seek(page, 2.5)
    assert page.evaluate(f"Skymark.workspace.dotOf({track.id})") == pytest.approx([500, 700], abs=1)
    _seek(page, 4.0)
    assert "dim" in page.get_attribute(_li(page, point.id), "class")
    assert "current" in page.get_attribute(_li(page, region.id), "class")
    assert page.evaluate(f"Skymark.workspace.dotOf({track.id})") is None  # outside its vertex times

    # the timeline is a scrubber: click and drag move the one cursor
    body = page.locator("#tl-body").bounding_box()
    page.mouse.click(body["x"] + body["width"] * 0.75, body["y"] + 8)
    page.wait_for_function("Math.abs(document.getElementById('video').currentTime - 7.5) < 0.1")
    page.mouse.move(body["x"] + body["width"] * 0.2, body["y"] + 8)
    page.mouse.down()
    page.mouse.move(body["x"] + body["width"] * 0.3, body["y"] + 8, steps=4)
    page.mouse.move(body["x"] + body["width"] * 0.4, body["y"] + 8, steps=4)
    page.mouse.up()
    page.wait_for_function("Math.abs(document.getElementById('video').currentTime - 4) < 0.1")
    assert page.inner_text("#current-time") == f"{_now(page):.2f}"
    # the filmstrip is drawn from the sprite track the pipeline built
    assert page.get_attribute("#filmstrip", "data-source") == "sprite"
    assert page.locator("#filmstrip .tl-thumb").count() >= 8
    assert "filmstrip.jpg" in page.get_attribute("#filmstrip .tl-thumb", "style")
    # without the sprite track the keyframes API fills the strip
    page.route("**/filmstrip.vtt", lambda route: route.fulfill(status=404, body="missing"))
    _open(page, scene.id)
    page.wait_for_selector("#filmstrip[data-source=keyframes] .tl-thumb img")
    assert page.js_errors == []


def test_keyboard_shortcuts(scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    page = login("ann")
    _open(page, scene.id)
    page.keyboard.press("?")
    assert page.is_visible("#help-overlay") and "Trajectory tool" in page.inner_text("#help-keys")
    screenshot(page, "help")
    page.keyboard.press("Escape")
    assert not page.is_visible("#help-overlay")

    page.keyboard.press(".")
    page.wait_for_function("Math.abs(document.getElementById('video').currentTime - 1/3) < 0.01")
    page.keyboard.press("Shift+ArrowRight")
    page.wait_for_function("Math.abs(document.getElementById('video').currentTime - 4/3) < 0.01")
    page.keyboard.press("Control+ArrowRight")
    page.wait_for_function("Math.abs(document.getElementById('video').currentTime - 19/3) < 0.01")
    page.keyboard.press(",")
    page.wait_for_function("Math.abs(document.getElementById('video').currentTime - 6) < 0.01")
    page.keyboard.press("Shift+ArrowLeft")
    page.wait_for_function("Math.abs(document.getElementById('video').currentTime - 5) < 0.01")

    # typing in a field is not a shortcut
    page.click("#mark-label")
    page.keyboard.type("p")
    assert "active" not in page.get_attribute("#tool-point", "class")
    page.fill("#mark-label", "van")
    page.keyboard.press("Escape")
    page.keyboard.press("p")
    assert "active" in page.get_attribute("#tool-point", "class")
    _click_image(page, 500, 500)
    _saved(page)
    [mark] = _api_marks(page, scene.id)
    # ctrl+z undoes the create (on the server too), ctrl+shift+z brings it back
    page.keyboard.press("Control+z")
    page.wait_for_selector("#marks-list li", state="detached")
    _saved(page)
    assert _api_marks(page, scene.id) == []
    page.keyboard.press("Control+Shift+z")
    page.wait_for_selector("#marks-list li[data-kind=point]")
    _saved(page)
    [again] = _api_marks(page, scene.id)
    assert (again["label"], again["geometry"], again["time_start"]) == (mark["label"], mark["geometry"], 5.0)

    # v selects; [ and ] set the selected mark's interval from the cursor
    page.keyboard.press("v")
    _select(page, again["id"])
    _seek(page, 2.0)
    page.keyboard.press("[")
    _seek(page, 4.0)
    page.keyboard.press("]")
    _saved(page)
    [m] = _api_marks(page, scene.id)
    assert (m["time_start"], m["time_end"]) == (2.0, 4.0)
    # c copies the mark to the cursor keeping its length; Delete removes the selection
    _seek(page, 6.0)
    page.keyboard.press("c")
    _saved(page)
    copies = sorted((x["time_start"], x["time_end"]) for x in _api_marks(page, scene.id))
    assert copies == [(2.0, 4.0), (6.0, 8.0)]
    page.keyboard.press("Delete")
    _saved(page)
    assert [(x["time_start"], x["time_end"]) for x in _api_marks(page, scene.id)] == [(2.0, 4.0)]
    # space plays and pauses, at the chosen rate
    page.select_option("#rate", "2")
    assert page.evaluate("document.getElementById('video').playbackRate") == 2
    page.keyboard.press("Escape")
    page.keyboard.press(" ")
    page.wait_for_function("!document.getElementById('video').paused")
    page.keyboard.press(" ")
    page.wait_for_function("document.getElementById('video').paused")
    assert page.js_errors == []
