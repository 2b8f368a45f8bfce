"""Drawing in the workspace: every mark kind, reshaping, validation in the panel and on the server,
and the remembered split."""

from __future__ import annotations

import pytest

from annotator.models import Scene
from tests.e2e.workspace_helpers import (
    STATE,
    _api_marks,
    _click_image,
    _console_errors,
    _drag_image,
    _flat,
    _li,
    _listed,
    _mark,
    _open,
    _polygon,
    _saved,
    _seek,
    _select,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_draw_every_kind_and_reload_gives_the_same_marks(scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    page = login("ann")
    console = _console_errors(page)
    _open(page, scene.id)
    # a point (key location) at t = 1
    page.click("#tool-point")
    page.fill("#mark-label", "roundabout")
    _seek(page, 1.0)
    _click_image(page, 960, 540)
    # a region with an interval anchor 2-6 s set from the cursor and task facts
    page.click("#tool-polygon")
    page.fill("#mark-label", "central island")
    page.select_option("#mark-visible", "yes")
    page.fill("#fact-count", "1")
    page.keyboard.press("Escape")  # leave the field, so shortcut keys act again
    _seek(page, 2.0)
    page.keyboard.press("[")
    _seek(page, 6.0)
    page.keyboard.press("]")
    for x, y in [(880, 470), (1040, 470), (1040, 610)]:
        _click_image(page, x, y)
    _click_image(page, 880, 610, double=True)
    # an ellipse (target instance): centre, then a corner of its box
    page.keyboard.press("e")
    page.fill("#mark-label", "car")
    page.keyboard.press("Escape")
    page.keyboard.press("i")
    _seek(page, 4.0)
    _click_image(page, 600, 300)
    _click_image(page, 660, 330)
    # a trajectory recorded across three times: one click per moment
    page.keyboard.press("t")
    for t, (x, y) in [(1.0, (300, 800)), (2.0, (400, 800)), (3.0, (500, 700))]:
        _seek(page, t)
        _click_image(page, x, y)
    assert "3 vertices" in page.inner_text("#recording")
    page.keyboard.press("Enter")
    _saved(page)
    screenshot(page, "01-four-kinds")

    saved = _api_marks(page, scene.id)
    by_kind = {m["kind"]: m for m in saved}
    assert set(by_kind) == {"point", "polygon", "ellipse", "polyline"}
    assert by_kind["point"]["geometry"]["coordinates"] == pytest.approx([960, 540], abs=3)
    assert (by_kind["point"]["time_start"], by_kind["point"]["time_end"]) == (1.0, None)
    polygon = by_kind["polygon"]
    assert (polygon["time_start"], polygon["time_end"]) == (2.0, 6.0)
    assert polygon["facts"] == {"visible": True, "count": 1}
    ellipse = by_kind["ellipse"]["geometry"]
    assert ellipse["type"] == "Ellipse" and ellipse["rotation"] == 0
    assert ellipse["center"] == pytest.approx([600, 300], abs=3)
    assert ellipse["radii"] == pytest.approx([60, 30], abs=3)
    assert by_kind["ellipse"]["time_start"] == 4.0 and by_kind["ellipse"]["time_end"] is None
    assert by_kind["ellipse"]["facts"] == {}  # facts belong to the mark they were set for
    track = by_kind["polyline"]
    assert track["vertex_times"] == [1.0, 2.0, 3.0]
    assert (track["time_start"], track["time_end"]) == (1.0, 3.0)
    assert _flat(track["geometry"]["coordinates"]) == pytest.approx([300, 800, 400, 800, 500, 700], abs=3)
    listed = _listed(page)
    assert len(listed) == 4 and all(int(row[0]) > 0 for row in listed)

    page.reload()
    page.wait_for_function("document.getElementById('workspace').dataset.ready === '1'")
    assert _api_marks(page, scene.id) == saved
    assert _listed(page) == listed
    assert page.evaluate(
        "localStorage.length === 0 || !Object.keys(localStorage).some(k => k.startsWith('skymark:pending'))"
    )
    assert page.js_errors == [] and console == []


def test_checks_in_the_panel_and_the_servers_field_messages(scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    point = _mark(scene, "point", {"type": "Point", "coordinates": [960, 540]}, "roundabout", 1.0)
    page = login("ann")
    _open(page, scene.id)
    # a label outside the label set is refused before anything is drawn
    page.click("#tool-polygon")
    page.fill("#mark-label", "spaceship")
    page.keyboard.press("Escape")
    _click_image(page, 100, 100)
    assert "label set" in page.inner_text("[data-error-for=label]")
    # a self-intersecting polygon is refused with a message next to the shape
    page.fill("#mark-label", "field")
    for x, y in [(100, 100), (300, 300), (300, 100)]:
        _click_image(page, x, y)
    _click_image(page, 100, 300, double=True)
    assert "cross" in page.inner_text("[data-error-for=geometry]")
    screenshot(page, "self-intersecting")
    # so is a corner outside the image (the grey margin below it)
    for x, y in [(400, 900), (600, 900)]:
        _click_image(page, x, y)
    _click_image(page, 500, 1150, double=True)
    assert "outside" in page.inner_text("[data-error-for=geometry]")
    assert len(_api_marks(page, scene.id)) == 1
    # an interval cannot end before it starts
    page.keyboard.press("v")
    _select(page, point.id)
    _seek(page, 0.5)
    page.keyboard.press("]")
    assert "before it starts" in page.inner_text("[data-error-for=time_end]")
    # the server's field messages are shown next to the field
    page.route(
        "**/api/marks/*/",
        lambda route: (
            route.fulfill(status=400, json={"label": ["the server refuses this label"]})
            if route.request.method == "PATCH"
            else route.continue_()
        ),
    )
    page.fill("#mark-label", "car")
    page.wait_for_function(f"{STATE} === 'error'")
    assert page.inner_text("[data-error-for=label]") == "the server refuses this label"
    screenshot(page, "server-400")
    assert page.js_errors == []


def test_reshape_ellipse_and_polygon_and_hide_by_label(scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    ellipse = _mark(
        scene, "ellipse", {"type": "Ellipse", "center": [960, 540], "radii": [100, 50], "rotation": 0}, "car", 1.0
    )
    region = _polygon(scene, t0=1.0, t1=3.0)
    page = login("ann")
    _open(page, scene.id)
    _seek(page, 1.0)
    _select(page, ellipse.id)
    _drag_image(page, (1060, 540), (1160, 540))  # the handle at the end of the first radius
    _saved(page)
    knob = page.evaluate(
        "(() => { const m = Skymark.workspace.map;"
        " const f = m.handles.getFeatures().find(h => h.get('role') === 'rotate');"
        " const [x, y] = f.getGeometry().getCoordinates(); return [x, m.h - y]; })()"
    )
    _drag_image(page, tuple(knob), (960, 740))  # the rotation knob, straight below the centre
    _saved(page)
    geometry = next(m for m in _api_marks(page, scene.id) if m["id"] == ellipse.id)["geometry"]
    assert geometry["radii"] == pytest.approx([200, 50], abs=3)
    assert geometry["rotation"] == pytest.approx(90, abs=2) and geometry["center"] == pytest.approx([960, 540], abs=1)
    screenshot(page, "ellipse-handles")
    _select(page, region.id)
    _drag_image(page, (1040, 470), (1100, 420))  # one corner of the region
    _saved(page)
    ring = next(m for m in _api_marks(page, scene.id) if m["id"] == region.id)["geometry"]["coordinates"][0]
    assert ring[1] == pytest.approx([1100, 420], abs=3)
    _drag_image(page, (950, 580), (990, 600))  # from inside: the whole region moves
    _saved(page)
    moved = next(m for m in _api_marks(page, scene.id) if m["id"] == region.id)["geometry"]["coordinates"][0]
    assert _flat(moved) == pytest.approx([v + d for x, y in ring for v, d in ((x, 40), (y, 20))], abs=3)
    page.keyboard.press("Control+z")  # undo the move: saved like any edit
    _saved(page)
    back = next(m for m in _api_marks(page, scene.id) if m["id"] == region.id)["geometry"]["coordinates"][0]
    assert _flat(back) == pytest.approx(_flat(ring), abs=0.2)

    page.uncheck("#label-filter input[data-label=car]")
    page.wait_for_selector(f"{_li(page, ellipse.id)}.concealed")
    assert page.locator(f"#tl-lanes .tl-span[data-mark-id='{ellipse.id}']").count() == 0
    hidden = page.evaluate(
        f"(() => {{ const m = Skymark.workspace.map;"
        f" return m.marksLayer.getStyleFunction()(m.feature({ellipse.id})); }})()"
    )
    assert hidden is None
    page.reload()
    page.wait_for_function("document.getElementById('workspace').dataset.ready === '1'")
    assert not page.is_checked("#label-filter input[data-label=car]")
    assert page.js_errors == []


def test_split_width_is_remembered(scene: Scene, login) -> None:  # type: ignore[no-untyped-def]
    page = login("ann")
    _open(page, scene.id)
    before = page.locator(".ws-video").bounding_box()["width"]
    handle = page.locator("#splitter").bounding_box()
    page.mouse.move(handle["x"] + 4, handle["y"] + 200)
    page.mouse.down()
    page.mouse.move(handle["x"] + 154, handle["y"] + 200, steps=6)
    page.mouse.up()
    after = page.locator(".ws-video").bounding_box()["width"]
    assert after == pytest.approx(before + 150, abs=4)
    page.reload()
    page.wait_for_function("document.getElementById('workspace').dataset.ready === '1'")
    assert page.locator(".ws-video").bounding_box()["width"] == pytest.approx(after, abs=2)
