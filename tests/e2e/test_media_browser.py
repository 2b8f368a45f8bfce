"""What the media pipeline prepares, as a person sees it: the scene page's findings and a
georeferenced orthophoto opened from its tile pyramid in the workspace."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db.models import Q
from playwright.sync_api import expect

from annotator.intake.manifest import read_manifest
from annotator.intake.services import scene_import
from annotator.models import Keyframe, MediaJob, Scene
from annotator.processing import graph
from config.celery import app as celery_app

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def saro(make_user, eager_celery, django_capture_on_commit_callbacks) -> Scene:  # type: ignore[no-untyped-def]
    make_user("ann", "annotator")
    [row] = [r for r in read_manifest(REPO / "demo" / "manifest.json") if r.spec and r.spec.name == "Saro roundabout"]
    assert row.spec is not None
    row.spec.annotators = ["ann"]
    return scene_import(spec=row.spec, created_by=None)


@pytest.fixture
def saro_queued(make_user) -> Iterator[Scene]:  # type: ignore[no-untyped-def]
    """The Saro scene just imported: its jobs are queued (on the broker, for no worker) and pending."""
    make_user("ann", "annotator")
    [row] = [r for r in read_manifest(REPO / "demo" / "manifest.json") if r.spec and r.spec.name == "Saro roundabout"]
    assert row.spec is not None
    row.spec.annotators = ["ann"]
    yield scene_import(spec=row.spec, created_by=None)
    celery_app.control.purge()  # no worker of a later run may meet messages naming this test's rows


def _work(jobs: list[MediaJob]) -> None:
    """Do what a worker does with these jobs and the ones they let start (the same service its task calls)."""
    queue = list(jobs)
    while queue:
        queue += graph.job_run(job_id=queue.pop(0).id)


def test_scene_page_shows_what_each_job_finds_as_it_finishes(saro_queued: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    scene = saro_queued
    jobs = list(MediaJob.objects.filter(Q(scene=scene) | Q(satellite_image__scenes=scene)).distinct().order_by("id"))
    page = login("ann")
    page.goto(f"/scenes/{scene.id}/")
    facts, keyframes = page.locator("#video-facts"), page.get_by_test_id("keyframes-count")
    expect(page.locator("#jobs-live")).to_contain_text("in progress")
    assert facts.inner_text().count("not probed yet") == 5 and keyframes.inner_text() == "(0)"
    screenshot(page, "01-queued", full_page=True)

    # when the probe finishes, the page shows what it found, with no reload
    [probe] = [j for j in jobs if j.kind == MediaJob.Kind.PROBE]
    graph.job_run(job_id=probe.id)
    scene.video.refresh_from_db()
    frames = facts.locator("dt:text-is('Frames') + dd")
    expect(frames).to_have_text(str(scene.video.frame_count))
    assert "not probed yet" not in facts.inner_text() and keyframes.inner_text() == "(0)"
    screenshot(page, "02-probed", full_page=True)

    # when the others finish, the keyframes and the georeference appear too
    _work([j for j in jobs if j.kind in graph.FIRST and j.kind != MediaJob.Kind.PROBE] + graph.job_followers(probe))
    count = Keyframe.objects.filter(video=scene.video).count()
    assert count > 0
    expect(keyframes).to_have_text(f"({count})")
    expect(page.locator("#keyframes figure")).to_have_count(count)
    expect(page.locator("#jobs-live")).to_have_text("All jobs finished.")
    expect(page.get_by_test_id("georef")).to_contain_text("GeoTIFF tags")
    screenshot(page, "03-finished", full_page=True)
    assert page.js_errors == []


def test_scene_page_shows_jobs_and_georeference(saro: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    page = login("ann")
    page.goto(f"/scenes/{saro.id}/")
    # every job finished (they ran inline) and says what it found; the CVAA previews wait for a model
    rows = page.locator("#jobs-table tbody tr")
    assert rows.count() == 11  # the placements job too (it places every keyframe, run last)
    assert page.locator("#jobs-table .badge", has_text="succeeded").count() == 10
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
