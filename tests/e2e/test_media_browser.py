"""What the media pipeline prepares, as a person sees it: the scene page's findings and a
georeferenced orthophoto opened from its tile pyramid in the workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotator.intake.manifest import read_manifest
from annotator.intake.services import scene_import
from annotator.models import Scene

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def saro(make_user, eager_celery, django_capture_on_commit_callbacks) -> Scene:  # type: ignore[no-untyped-def]
    make_user("ann", "annotator")
    [row] = [r for r in read_manifest(REPO / "demo" / "manifest.json") if r.spec and r.spec.name == "Saro roundabout"]
    assert row.spec is not None
    row.spec.annotators = ["ann"]
    return scene_import(spec=row.spec, created_by=None)


def test_scene_page_shows_jobs_and_georeference(saro: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    page = login("ann")
    page.goto(f"/scenes/{saro.id}/")
    # every job finished (they ran inline) and says what it found; the CVAA previews wait for a model
    rows = page.locator("#jobs-table tbody tr")
    assert rows.count() == 10
    assert page.locator("#jobs-table .badge", has_text="succeeded").count() == 9
    skipped = page.locator("#jobs-table tr[data-state='skipped']")
    assert "no active CVAA checkpoint" in skipped.inner_text()
    assert "All jobs finished." in page.locator("#jobs-live").inner_text()
    assert "RMS" in page.locator("#jobs-table").inner_text()
    # the orthophoto's georeference and its residual at the six control points
    georef = page.get_by_test_id("georef").inner_text()
    assert "GeoTIFF tags" in georef and "0.18 m at 6 control points" in georef
    assert "Orthophoto made from the video's own frame" in page.get_by_test_id("provenance-note").inner_text()
    screenshot(page, "scene-page", full_page=True)
    assert page.js_errors == []


def test_workspace_reads_tiles_and_shows_lat_lon(saro: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    page = login("ann")
    tiles: list[str] = []
    page.on("request", lambda r: tiles.append(r.url) if "/tiles/TileGroup" in r.url else None)
    page.goto(f"/scenes/{saro.id}/workspace/")
    page.wait_for_function("document.querySelector('#map canvas') !== null")
    page.wait_for_timeout(800)
    # the map asked for Zoomify tiles, not the whole image
    assert tiles and all(t.endswith(".png") for t in tiles)
    # a scale bar in metres
    assert page.locator(".ol-scale-line-inner").inner_text().strip().endswith("m")
    # moving over the image shows its pixel and its lat/lon near the roundabout (57.4844 N, 12.0092 E)
    image = saro.satellite_images.get()
    px, py = page.evaluate(f"Skymark.workspace.pixelOf({image.width / 2}, {image.height / 2})")
    box = page.locator("#map").bounding_box()
    page.mouse.move(box["x"] + px, box["y"] + py)
    page.wait_for_timeout(200)
    readout = page.locator("#cursor-px").inner_text()
    lat, lon = (float(v) for v in readout.split("·")[1].split(","))
    assert abs(lat - 57.4844) < 0.002 and abs(lon - 12.0092) < 0.003, readout
    screenshot(page, "workspace-orthophoto")
    assert page.js_errors == []
