"""The keyframe placement overlay on a moving clip (Brighton Beach, a photo a second along flight lines):
the footprint polygon follows the video as it plays and is scrubbed, labelled with its source and its
error in metres, and no polygon is drawn where the placement's confidence is below the threshold."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotator.models import KeyframePlacement, Scene
from tests.e2e.workspace_helpers import _flat, _open, _seek

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def brighton(testdata: Path, make_user, eager_celery) -> Scene:  # type: ignore[no-untyped-def]
    """The Brighton Beach clip over its orthomosaic with its flight log, assigned to "ann"; media jobs,
    the placements included, have run inline."""
    from annotator.intake.services import SceneSpec, scene_import

    make_user("ann", "annotator")
    folder = testdata / "brighton_beach"
    spec = SceneSpec(
        name="Brighton",
        video=folder / "brighton_beach_1fps.mp4",
        satellite=[folder / "brighton_beach_ortho_utm15n.tif"],
        telemetry=folder / "frames.csv",
        annotators=["ann"],
    )
    return scene_import(spec=spec, created_by=None)


def _footprint(page):  # type: ignore[no-untyped-def]
    return page.evaluate("Skymark.workspace.map.overlay('footprint')")


def _quad_now(page) -> list[float] | None:  # type: ignore[no-untyped-def]
    o = _footprint(page)
    return None if o is None else [round(v, 1) for v in _flat(o["quad"])]


def test_the_footprint_follows_the_video_and_is_not_drawn_below_the_threshold(  # type: ignore[no-untyped-def]
    brighton: Scene, login, screenshot, settings
) -> None:
    # given every keyframe placed (the job ran at import), keyframe 3's placement forced below the threshold
    rows = {r.keyframe.index: r for r in KeyframePlacement.objects.select_related("keyframe")}
    assert sorted(rows) == list(range(18))
    assert settings.SKYMARK_PLACEMENT_MIN_CONFIDENCE == 0.5
    KeyframePlacement.objects.filter(id=rows[3].id).update(confidence=0.1)

    page = login("ann")
    _open(page, brighton.id)
    status = page.get_by_test_id("placement-status")
    expect(page.get_by_test_id("cvaa-status")).to_contain_text("placed 18/18")

    # at 0 s: keyframe 0's footprint, where its row puts it, labelled with its source and its error in m
    _seek(page, 0.0)
    at0 = _footprint(page)
    assert _flat(at0["quad"]) == pytest.approx(_flat(rows[0].quad), abs=0.01)
    assert at0["source"] == rows[0].source
    names = {"matching": "matching", "chaining": "chained", "telemetry": "telemetry"}
    # the orthomosaic's own georeference error is not known (a GeoTIFF without control points): the
    # metres are the error on the map, and the label says so
    assert rows[0].details["map_error_m"] is None
    err = f"±{rows[0].uncertainty_m:.1f} m on the map"
    assert at0["label"] == f"{names[rows[0].source]} {err} · {rows[0].confidence:.2f}"
    words = KeyframePlacement.Source(rows[0].source).label
    expect(status).to_have_text(f"{words} · {err} · confidence {rows[0].confidence:.2f}")
    screenshot(page, "placement-at-0s")

    # scrubbing to 1 s and 2 s: the polygon moves to each keyframe's own footprint
    _seek(page, 1.0)
    at1 = _footprint(page)
    assert _flat(at1["quad"]) == pytest.approx(_flat(rows[1].quad), abs=0.01)
    assert _flat(at1["quad"]) != pytest.approx(_flat(at0["quad"]), abs=5)
    _seek(page, 2.0)
    assert _flat(_footprint(page)["quad"]) == pytest.approx(_flat(rows[2].quad), abs=0.01)
    screenshot(page, "placement-at-2s")

    # at 3 s the placement is below the threshold: no polygon, and the line says why
    _seek(page, 3.0)
    assert _footprint(page) is None
    expect(status).to_have_text("not placed (low confidence)")
    screenshot(page, "placement-low-confidence")

    # playing from 4 s: the polygon follows the video on its own, keyframe by keyframe
    _seek(page, 4.0)
    start = _quad_now(page)
    assert start == pytest.approx([round(v, 1) for v in _flat(rows[4].quad)], abs=0.1)
    page.evaluate("document.getElementById('video').play()")
    page.wait_for_function(
        "(() => { const o = Skymark.workspace.map.overlay('footprint');"
        f" return o && Math.abs(o.quad[0][0] - {rows[4].quad[0][0]}) > 1; }})()"
    )
    page.evaluate("document.getElementById('video').pause()")
    now = float(page.evaluate("document.getElementById('video').currentTime"))
    nearest = min(rows, key=lambda i: (abs(rows[i].keyframe.time_s - now), i))
    assert nearest > 4
    screenshot(page, "placement-playing")
    assert page.js_errors == []


def test_the_scene_page_says_which_telemetry_field_is_missing(  # type: ignore[no-untyped-def]
    tmp_path: Path, make_user, eager_celery, login, screenshot
) -> None:
    # given a flight log with GPS and heading but no height above take-off
    from annotator.intake.services import SceneSpec, scene_import
    from tests.factories import tiny_video

    make_user("ada", "admin")
    log = tmp_path / "gps.csv"
    log.write_text("time_s,lat,lon,alt_msl_m,yaw\n0,46.8426,-91.9945,240,45\n1,46.8427,-91.9944,241,45\n")
    spec = SceneSpec(name="No height", video=tiny_video(), satellite_from_keyframe_s=0.0, telemetry=log)
    scene = scene_import(spec=spec, created_by=None)

    # when the admin opens the scene page, the telemetry line says what is missing
    page = login("ada")
    page.goto(f"/scenes/{scene.id}/")
    warning = page.get_by_test_id("telemetry-warning")
    expect(warning).to_contain_text("none of the 2 samples has a height above take-off (height_m)")
    warning.scroll_into_view_if_needed()
    screenshot(page, "scene-telemetry-warning")


def test_the_jobs_table_says_what_a_waiting_job_waits_for_and_the_placement_notes(  # type: ignore[no-untyped-def]
    make_user, login, screenshot
) -> None:
    # given a scene whose placements job found its keyframes still to run, on an image with no
    # georeference where one of its three keyframes was placed by an earlier run
    from annotator.models import MediaJob
    from tests.factories import KeyframeFactory, KeyframePlacementFactory, SatelliteImageFactory, SceneFactory

    make_user("ada", "admin")
    image = SatelliteImageFactory(original_name="plain.png")
    scene = SceneFactory(satellite_images=[image])
    kfs = [KeyframeFactory(video=scene.video, index=i) for i in range(3)]
    KeyframePlacementFactory(keyframe=kfs[0], satellite_image=image)
    MediaJob.objects.create(scene=scene, kind=MediaJob.Kind.KEYFRAMES, state="running")
    waiting = MediaJob.objects.create(
        scene=scene, kind=MediaJob.Kind.PLACEMENTS, waiting_for="keyframes",
        detail="waiting for keyframes: it runs when they are done",
    )  # fmt: skip

    # when the admin opens the scene page, the row says what it waits for, drawn by the page and then by
    # its poll, with no start or finish time
    page = login("ada")
    page.goto(f"/scenes/{scene.id}/")
    row = page.locator(f"#jobs-table tr[data-job-id='{waiting.id}']")
    expect(row.locator(".badge")).to_have_text("waiting for keyframes")
    with page.expect_response(lambda r: f"/api/scenes/{scene.id}/jobs/" in r.url):
        pass  # the page's next poll, which draws the rows again
    expect(row.locator(".badge")).to_have_text("waiting for keyframes")
    assert row.locator("td").nth(4).inner_text() == "—" and row.locator("td").nth(5).inner_text() == "—"
    assert row.locator(".job-detail").count() == 0
    screenshot(page, "scene-job-waiting", full_page=True)

    # and once the placements job has run, the notes say what is not placed and that it is in pixels only
    MediaJob.objects.filter(id=waiting.id).update(state="succeeded", waiting_for="", detail="image: 1/3 placed")
    MediaJob.objects.filter(scene=scene, kind=MediaJob.Kind.KEYFRAMES).update(state="succeeded")
    page.goto(f"/scenes/{scene.id}/")
    notes = page.get_by_test_id("placement-warning")
    expect(notes).to_have_count(2)
    expect(notes.nth(0)).to_contain_text("plain.png: 2 of 3 keyframes could not be placed by any source")
    expect(notes.nth(1)).to_contain_text("plain.png has no georeference: placements on it are in its pixels only")
    expect(page.get_by_test_id("telemetry-warning")).to_have_count(0)
    notes.nth(0).scroll_into_view_if_needed()
    screenshot(page, "scene-placement-notes")
    assert page.js_errors == []
