"""A scene with two satellite images of one place (Rotterdam: an RGB image at 1 m and the
panchromatic GeoTIFF at 0.5 m) in Chromium: the switcher names each, swaps the map's image and
pixel projection keeping the time cursor, draws each mark only on its own image, puts new marks on
the image shown, and clicking a mark of the other image in the list switches to it; items say which
image they use."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotator.compiling.services import item_compile
from annotator.marking.services import mark_create
from annotator.models import Scene
from tests.e2e.workspace_helpers import STATE, _click_image, _console_errors, _open, _seek

RGB = "spacenet6_rotterdam_rgb8_1m_derived.tif"
PAN = "spacenet6_rotterdam_pan_0p5m.tif"


@pytest.fixture
def rotterdam(testdata: Path, make_user, eager_celery) -> Scene:  # type: ignore[no-untyped-def]
    """The Saro clip (for its time line) with the two Rotterdam images, processed inline, assigned to "ann"."""
    from annotator.intake.services import SceneSpec, scene_import

    make_user("ann", "annotator")
    spec = SceneSpec(
        name="Rotterdam",
        video=testdata / "videos/saro_roundabout_topdown_1080p_3fps.mp4",
        satellite=[testdata / "satellite" / RGB, testdata / "satellite" / PAN],
        annotators=["ann"],
    )
    return scene_import(spec=spec, created_by=None)


def _on_map(page) -> list[int]:  # type: ignore[no-untyped-def]
    return sorted(page.evaluate("Skymark.workspace.map.marks.getFeatures().map(f => f.getId())"))


def _shown(page, image_id: int) -> None:  # type: ignore[no-untyped-def]
    """The map shows this image, its tiles loaded and drawn (OpenLayers' rendercomplete)."""
    page.wait_for_function(f"Skymark.workspace.imageId() === {image_id}")
    page.evaluate(
        "new Promise(done => { const m = Skymark.workspace.map.map;"
        " m.once('rendercomplete', () => done(true)); m.render(); })"
    )


def test_switching_images_keeps_marks_on_their_own_image(rotterdam: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    # given a region on the RGB image (2-6 s), a point on the pan image, and an item from the region
    rgb, pan = rotterdam.satellite_images.order_by("id")
    assert (rgb.original_name, pan.original_name, rgb.width, pan.width) == (RGB, PAN, 300, 600)
    ann = rotterdam.assignments.get().annotator
    ring = [[100, 100], [200, 100], [200, 180], [100, 180], [100, 100]]
    region = mark_create(scene=rotterdam, author=ann, satellite_image=rgb, kind="polygon",
                         geometry={"type": "Polygon", "coordinates": [ring]}, label="parking lot",
                         time_start=2.0, time_end=6.0, facts={"visible": True})  # fmt: skip
    lamp = mark_create(scene=rotterdam, author=ann, satellite_image=pan, kind="point",
                       geometry={"type": "Point", "coordinates": [420, 260]}, label="lamppost",
                       time_start=1.0)  # fmt: skip
    item = item_compile(user=ann, task="target_visibility", mark_ids=[region.id])
    page = login("ann")
    console = _console_errors(page)
    _open(page, rotterdam.id)
    _shown(page, rgb.id)

    # then the switcher names both images with their ground sample distance and georeference
    switcher = page.get_by_test_id("image-switcher")
    buttons = switcher.locator("button[data-image-id]")
    assert buttons.count() == 2
    assert RGB in buttons.nth(0).inner_text() and "1.00 m/px" in buttons.nth(0).inner_text()
    assert PAN in buttons.nth(1).inner_text() and "0.50 m/px" in buttons.nth(1).inner_text()
    assert "GeoTIFF tags" in buttons.nth(1).inner_text()
    assert buttons.nth(0).get_attribute("aria-checked") == "true"
    # and the map draws only the RGB image's mark; the list says which image each mark is on
    assert _on_map(page) == [region.id]
    assert page.evaluate("[Skymark.workspace.map.w, Skymark.workspace.map.h]") == [300, 300]
    marks = page.locator("#marks-list")
    assert marks.locator(f"li[data-mark-id='{region.id}'] [data-testid=mark-image]").inner_text() == f"on {RGB}"
    assert marks.locator(f"li[data-mark-id='{lamp.id}'] [data-testid=mark-image]").inner_text() == f"on {PAN}"
    assert "other-image" in (marks.locator(f"li[data-mark-id='{lamp.id}']").get_attribute("class") or "")
    # and the item says it uses the RGB image
    item_image = page.locator(f"#items-list li[data-item-id='{item.id}'] [data-testid=item-image]")
    assert item_image.inner_text() == f"Image: {RGB}"
    screenshot(page, "1-rgb")

    # when the annotator, at 3 s, switches to the pan image
    _seek(page, 3.0)
    # (the map then loads the pan image's own tiles, or its display image)
    with page.expect_request(lambda r: f"/media/satellite/{pan.id}" in r.url) as pan_pixels:
        buttons.nth(1).click()
    _shown(page, pan.id)

    # then the map shows the pan image in its own pixels with its own mark, and the time stays
    assert _on_map(page) == [lamp.id]
    assert page.evaluate("[Skymark.workspace.map.w, Skymark.workspace.map.h]") == [600, 600]
    assert page.evaluate("document.getElementById('video').currentTime") == pytest.approx(3.0, abs=0.01)
    assert page.inner_text("#current-time") == "3.00"
    assert PAN in page.get_by_test_id("image-facts").inner_text()
    assert buttons.nth(1).get_attribute("aria-checked") == "true"
    assert f"image={pan.id}" in page.url
    assert pan_pixels.value.response().ok
    screenshot(page, "2-pan")

    # when a point is drawn on the pan image
    page.click("#tool-point")
    page.fill("#mark-label", "tree")
    _click_image(page, 500, 500)
    page.wait_for_function(f"{STATE} === 'saved'")

    # then it is saved on the pan image, at the pixel clicked in the pan image's pixels
    new = page.evaluate(
        f"fetch('/api/scenes/{rotterdam.id}/marks/?limit=50').then(r => r.json())"
        ".then(b => b.results.filter(m => m.label === 'tree'))"
    )
    assert len(new) == 1 and new[0]["satellite_image"] == pan.id
    assert new[0]["geometry"]["coordinates"] == pytest.approx([500, 500], abs=2)
    page.wait_for_function("Skymark.workspace.map.marks.getFeatures().length === 2")
    assert _on_map(page) == sorted([lamp.id, new[0]["id"]])
    page.click("#tool-none")

    # when the annotator clicks the RGB region in the marks list
    marks.locator(f"li[data-mark-id='{region.id}'] .mk-label").click()

    # then the map is back on the RGB image with the region selected, and the pan marks are gone from it
    _shown(page, rgb.id)
    page.wait_for_function(f"Skymark.workspace.ws.selectedId === {region.id}")
    assert _on_map(page) == [region.id]
    assert page.evaluate("Skymark.workspace.map.selectedId") == region.id
    assert buttons.nth(0).get_attribute("aria-checked") == "true"
    # and the M key goes to the next image
    page.locator("#map").click(position={"x": 5, "y": 5})
    page.keyboard.press("m")
    _shown(page, pan.id)
    screenshot(page, "3-back-and-forth")
    assert console == [] and page.js_errors == []
