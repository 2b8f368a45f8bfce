"""Assisted trajectories in the browser: Shift+click a car in the Saro video, press K, see the draft
trajectory on the map with its source and uncertainty, drop outliers, confirm."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from annotator.intake.services import SceneSpec, scene_import
from annotator.models import Mark, Scene
from media_tools.geo import read_gcp_csv
from tests.e2e.workspace_helpers import _drag_image, _open, _saved, _seek

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# A car at 0 s (the centre of its labelled box in frame_000000.txt, video pixels), which drives on
# through the roundabout at about 20 px a frame.
CAR = (1181.5, 484.0)


@pytest.fixture
def ortho_scene(testdata: Path, make_user, eager_celery) -> Scene:  # type: ignore[no-untyped-def]
    """Saro as the demo imports it: the map is the first frame warped north-up with the surveyed control
    points (0.11 m/px), so the import's footprint is a control-point homography with metres; the
    placements job (run inline) places the other keyframes."""
    make_user("ann", "annotator")
    videos = testdata / "videos"
    spec = SceneSpec(
        name="Saro",
        video=videos / "saro_roundabout_topdown_1080p_3fps.mp4",
        orthophoto_from_keyframe_s=0,
        gcps=[list(p) for p in read_gcp_csv(videos / "saro_roundabout_gcp_pixels_1080p.csv")],
        annotators=["ann"],
    )
    return scene_import(spec=spec, created_by=None)


def _shift_click_video(page, x: float, y: float) -> None:  # type: ignore[no-untyped-def]
    """Shift+click video pixel (x, y) wherever the page has put the picture."""
    box = page.locator("#video").bounding_box()
    vw, vh = page.evaluate("(v => [v.videoWidth, v.videoHeight])(document.getElementById('video'))")
    scale = min(box["width"] / vw, box["height"] / vh)
    left = box["x"] + (box["width"] - vw * scale) / 2
    top = box["y"] + (box["height"] - vh * scale) / 2
    page.keyboard.down("Shift")
    page.mouse.click(left + x * scale, top + y * scale)
    page.keyboard.up("Shift")


def test_a_shift_click_and_k_give_a_draft_that_is_confirmed(ortho_scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page = login("ann")
    _open(page, ortho_scene.id)
    _seek(page, 0.0)
    page.fill("#mark-label", "car")

    # K with no target says what to do first
    page.locator("#map").click()  # the focus off the label field: K is a shortcut, not a letter
    page.keyboard.press("k")
    expect(page.locator("#assist-status")).to_contain_text("Shift+click the target")

    # Shift+click the car: the video stays paused and the target is marked over it
    _shift_click_video(page, *CAR)
    assert page.evaluate("document.getElementById('video').paused")
    expect(page.locator("#assist-target")).to_be_visible()

    # K tracks it: the draft trajectory appears with its source and uncertainty in metres
    page.keyboard.press("k")
    expect(page.locator("#assist-status")).to_contain_text("Draft trajectory", timeout=60_000)
    status = page.inner_text("#assist-status")
    # every keyframe is placed (frame 0 by the import's control points, the rest by the placements job)
    assert "30 of 30 frames on the map" in status and "control points" in status and " m ·" in status, status
    expect(page.locator("#assist-confirm")).to_be_visible()
    [mark] = Mark.objects.filter(scene=ortho_scene)
    assert mark.draft and mark.kind == "polyline" and mark.label == "car"
    assert len(mark.vertex_times) >= 10 and mark.vertex_times[0] == pytest.approx(0.0, abs=0.01)
    circles = page.evaluate("Skymark.workspace.uncertainty()")
    assert len(circles) == len(mark.vertex_times)
    assert {part for c in circles for part in c[3].split("+")} <= {"control_points", "matching", "chaining"}
    label = page.evaluate(f"Skymark.workspace.store.get({mark.id}).draft")
    assert label is True
    page.evaluate(f"Skymark.workspace.map.fitTo([{mark.id}])")
    page.wait_for_timeout(300)
    shot = screenshot(page, "draft")
    assert shot.stat().st_size > 10_000

    # drag the draft's middle vertex 12 px aside on the map: saved like any mark's edit, the others stay
    before = [list(p) for p in mark.geometry["coordinates"]]
    k = len(before) // 2
    t_k = mark.vertex_times[k]
    moved = (before[k][0] + 12.0, before[k][1] - 12.0)
    saving = f"/api/marks/{mark.id}/"
    with page.expect_response(lambda r: r.request.method == "PATCH" and r.url.endswith(saving), timeout=15_000):
        _drag_image(page, tuple(before[k]), moved)
    _saved(page)
    mark.refresh_from_db()
    after = mark.geometry["coordinates"]
    assert after[k] == [pytest.approx(moved[0], abs=1.5), pytest.approx(moved[1], abs=1.5)], (before[k], after[k])
    # the others stay (the page saves coordinates to a tenth of a pixel)
    others = [(p, q) for i, (p, q) in enumerate(zip(before, after, strict=True)) if i != k]
    assert max(abs(a - b) for p, q in others for a, b in zip(p, q, strict=True)) <= 0.05 + 1e-9
    assert mark.draft and mark.vertex_times[k] == t_k
    screenshot(page, "draft-vertex-dragged")

    # Drop outliers is an ordinary edit; then Confirm makes it final, with the moved vertex
    page.click("#assist-drop")
    page.click("#assist-confirm")
    expect(page.locator("#assist-status")).to_have_text("Trajectory confirmed")
    mark.refresh_from_db()
    assert not mark.draft
    at = mark.vertex_times.index(t_k)
    assert mark.geometry["coordinates"][at] == [pytest.approx(moved[0], abs=1.5), pytest.approx(moved[1], abs=1.5)]
    assert page.evaluate(f"Skymark.workspace.store.get({mark.id}).draft") is False
    expect(page.locator("#assist-confirm")).to_be_hidden()
    screenshot(page, "confirmed")
    assert page.js_errors == []


def test_every_marked_car_near_the_cursor_gets_a_draft(ortho_scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    import numpy as np
    from playwright.sync_api import expect

    from annotator.marking.assist.placements import placed_keyframes
    from annotator.marking.services import mark_create

    # given the annotator marked the car once, as a point on the map at 0 s
    scene = Scene.objects.select_related("video").get(id=ortho_scene.id)  # as probed since the import
    image = scene.satellite_images.get()
    [placed] = [k for k in placed_keyframes(scene=scene, image=image) if k.time_s == 0.0]
    x, y = placed.placement.project(np.array([CAR]))[0]
    ann = ortho_scene.assignments.get().annotator
    point = {"type": "Point", "coordinates": [float(x), float(y)]}
    target = mark_create(
        scene=ortho_scene, author=ann, satellite_image=image, kind="point", geometry=point, label="car", time_start=0.0
    )

    page = login("ann")
    _open(page, ortho_scene.id)
    _seek(page, 1.0)
    page.fill("#mark-label", "car")
    # The page's read of the finished draft is held back: until it is on the map the bar says the
    # tracking runs, not its outcome (the outcome said first was read before the draft was there).
    held: list = []
    one_mark = re.compile(r".*/api/marks/\d+/$")
    page.route(one_mark, lambda route: held.append(route) if route.request.method == "GET" else route.continue_())
    page.click("#assist-batch")
    for _ in range(600):  # the tracking runs inline: the read comes within seconds
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "the page never read the finished draft"
    expect(page.locator("#assist-status")).to_contain_text("Tracking 1 target")
    for route in held:
        route.continue_()
    page.unroute(one_mark)
    expect(page.locator("#assist-status")).to_have_text(
        "1 draft trajectory made · check each, then Confirm", timeout=60_000
    )
    draft = Mark.objects.exclude(id=target.id).get(scene=ortho_scene)
    assert draft.draft and draft.kind == "polyline" and draft.vertex_times[0] == pytest.approx(0.0, abs=0.01)
    assert page.evaluate(f"Skymark.workspace.store.get({draft.id}).draft") is True
    screenshot(page, "batch")

    # after a reload, selecting the draft shows its sources and uncertainty again (from its job)
    _open(page, ortho_scene.id)
    page.evaluate(f"Skymark.workspace.select({draft.id})")
    page.wait_for_function(f"Skymark.workspace.uncertainty().length === {len(draft.vertex_times)}")
    expect(page.locator("#assist-status")).to_contain_text("control points")

    # with no worker to take them (tasks queued, not run inline) a new batch waits: its Cancel stops it
    from annotator.models import TrackingJob
    from config.celery import app

    app.conf.task_always_eager = False  # the eager_celery fixture puts it back
    page.fill("#mark-label", "car")
    page.click("#assist-batch")
    expect(page.locator("#assist-status")).to_have_text("Tracking 1 target… 0 %")
    expect(page.locator("#assist-cancel")).to_be_visible()
    screenshot(page, "batch-waiting")
    page.click("#assist-cancel")
    expect(page.locator("#assist-status")).to_have_text("0 draft trajectories made, 1 cancelled")
    expect(page.locator("#assist-cancel")).to_be_hidden()
    assert TrackingJob.objects.filter(scene=ortho_scene).order_by("-id").first().state == "cancelled"  # type: ignore[union-attr]
    assert Mark.objects.filter(scene=ortho_scene).count() == 2  # the point and the first draft: nothing new
    screenshot(page, "batch-cancelled")
    assert page.js_errors == []
