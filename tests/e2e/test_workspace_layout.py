"""The map stays put in Chromium: a banner over it (recording a trajectory) or more timeline lanes
(marks that overlap in time) must not move or resize the map, or the image under the pointer would
jump while a person draws."""

from __future__ import annotations

from annotator.models import Scene
from tests.e2e.workspace_helpers import _click_image, _console_errors, _open, _px, _saved, _seek


def _box(page) -> tuple[float, float, float, float]:  # type: ignore[no-untyped-def]
    box = page.locator("#map").bounding_box()
    return box["x"], box["y"], box["width"], box["height"]


def test_map_keeps_its_place_when_a_banner_shows_and_the_timeline_grows(scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    page = login("ann")
    console = _console_errors(page)
    _open(page, scene.id)
    before, pixel = _box(page), _px(page, 960, 540)
    lanes = page.locator("#tl-lanes").bounding_box()["height"]
    screenshot(page, "01-before")

    # when: the trajectory tool shows its recording banner over the map
    page.click("#tool-polyline")
    page.wait_for_selector("#recording:not(.hidden)")
    screenshot(page, "02-recording-banner")
    assert _box(page) == before
    assert _px(page, 960, 540) == pixel

    # when: six points at the same instant need six timeline lanes
    page.click("#tool-point")
    page.fill("#mark-label", "car")
    page.keyboard.press("Escape")
    _seek(page, 1.0)
    for k in range(6):
        _click_image(page, 300 + 150 * k, 300)
    _saved(page)
    page.wait_for_function("document.querySelectorAll('#tl-lanes > *').length === 6")
    assert page.evaluate("getComputedStyle(document.getElementById('tl-lanes')).getPropertyValue('--lanes')") == "6"
    screenshot(page, "03-six-lanes")
    # then the map has neither moved nor changed size, and the lanes scroll in the room kept for them
    assert _box(page) == before
    assert _px(page, 960, 540) == pixel
    assert page.locator("#tl-lanes").bounding_box()["height"] == lanes
    assert console == []
