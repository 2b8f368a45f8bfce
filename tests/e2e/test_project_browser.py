"""A project from end to end in Chromium: an admin creates it with a label set and a task mix, adds
annotators, imports a scene into it and assigns it; the annotator sees the scene with the project's
labels and compiles an item; the dashboard counts it against the mix; the admin reassigns the
scene and the first annotator loses it at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from annotator.models import Assignment, Project, Scene

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

FETCH = """async ([url, body]) => {
  const token = document.cookie.split("; ").find((c) => c.startsWith("csrftoken="))?.split("=")[1] || "";
  const r = await fetch(url, {method: body ? "POST" : "GET", body: body ? JSON.stringify(body) : undefined,
    headers: {"Content-Type": "application/json", "X-CSRFToken": token}});
  return {status: r.status, body: await r.json().catch(() => null)};
}"""


def _create_project(page: Any, screenshot: Any) -> Project:
    page.goto("/projects/")
    page.fill("#project-name", "Harbour survey")
    page.fill("#project-labels", "boat: instance\npier: region")
    page.fill("#target-target_visibility", "3")
    page.fill("#target-zone_counting", "2")
    screenshot(page, "1-create", full_page=True)
    page.click("#project-create")
    expect(page.locator("h1")).to_have_text("Harbour survey")
    for name in ("ann1", "ann2"):
        page.select_option("#add-annotator", label=name)
        page.click("#add-annotator-submit")
        expect(page.locator(f'tr[data-member="{name}"][data-role="annotator"]')).to_have_count(1)
    screenshot(page, "2-members", full_page=True)
    return Project.objects.get(name="Harbour survey")


def _import_and_assign(page: Any, project: Project, testdata: Path, screenshot: Any) -> Scene:
    folder = testdata / "brighton_beach"
    page.click("#to-import")
    expect(page.locator("#id_project")).to_have_value(str(project.id))
    page.fill("#id_name", "Harbour pier")
    page.set_input_files("#id_video", str(folder / "brighton_beach_1fps.mp4"))
    page.set_input_files("#id_satellite", str(folder / "brighton_beach_ortho_utm15n.tif"))
    page.click("#upload-submit")
    page.wait_for_url(lambda url: "/upload/" not in url)
    scene = Scene.objects.get(name="Harbour pier")
    assert scene.project_id == project.id
    page.goto(f"/projects/{project.id}/assignments/")
    page.check(f'#scenes-table input[value="{scene.id}"]')
    page.check('#annotators-table tr[data-annotator="ann1"] input')
    page.click("#assign-balanced")
    expect(page.locator('#scenes-table tr[data-scene="Harbour pier"] [data-annotator="ann1"]')).to_have_count(1)
    expect(page.locator('#annotators-table tr[data-annotator="ann1"] [data-scene="Harbour pier"]')).to_have_count(1)
    screenshot(page, "3-assigned", full_page=True)
    return scene


def _annotate(page: Any, scene: Scene, screenshot: Any) -> None:
    expect(page.locator(f'a[href="/scenes/{scene.id}/"]').first).to_be_visible()
    page.goto(f"/scenes/{scene.id}/workspace/")
    expect(page.locator("#label-options option")).to_have_count(2)
    values = page.eval_on_selector_all("#label-options option", "els => els.map(e => e.value)")
    assert sorted(values) == ["boat", "pier"]
    image = scene.satellite_images.get()
    mark = {
        "satellite_image": image.id, "kind": "polygon", "time_start": 1, "facts": {"visible": True},
        "geometry": {"type": "Polygon", "coordinates": [[[100, 100], [400, 100], [400, 300], [100, 300], [100, 100]]]},
    }  # fmt: skip
    refused = page.evaluate(FETCH, [f"/api/scenes/{scene.id}/marks/", {**mark, "label": "roundabout"}])
    assert refused["status"] == 400 and "label set (boat, pier" in refused["body"]["label"][0]
    made = page.evaluate(FETCH, [f"/api/scenes/{scene.id}/marks/", {**mark, "label": "pier"}])
    assert made["status"] == 201, made
    item = page.evaluate(FETCH, ["/api/items/", {"task": "target_visibility", "mark_ids": [made["body"]["id"]]}])
    assert item["status"] == 201, item
    assert page.evaluate(FETCH, [f"/api/satellite/{image.id}/convert/?x=1&y=1", None])["status"] == 200
    page.reload()
    expect(page.locator("#label-options option")).to_have_count(2)
    screenshot(page, "4-workspace")


def test_a_project_from_creation_to_reassignment(testdata: Path, make_user, eager_celery, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    # given an admin and two annotators (members of the default project only)
    make_user("boss", "admin")
    make_user("ann1", "annotator")
    make_user("ann2", "annotator")
    admin = login("boss")

    # when the admin creates a project, adds both annotators, imports a scene and assigns it to ann1
    project = _create_project(admin, screenshot)
    scene = _import_and_assign(admin, project, testdata, screenshot)

    # then ann1 sees it with the project's labels and compiles an item from a region
    ann1 = login("ann1")
    _annotate(ann1, scene, screenshot)

    # and the dashboard counts the item against the mix (1 of 3 Target Visibility items)
    admin.goto(f"/projects/{project.id}/dashboard/")
    bar = admin.locator('#mix rect[data-task="Target Visibility"]')
    expect(bar).to_have_attribute("data-count", "1")
    expect(bar).to_have_attribute("data-target", "3")
    expect(admin.locator('#stages-table tr[data-stage="draft"] td.num')).to_have_text("1")
    expect(admin.locator("#project-map")).to_have_attribute("data-points", "1")
    screenshot(admin, "5-dashboard", full_page=True)

    # when the admin reassigns the scene from ann1 to ann2
    admin.goto(f"/projects/{project.id}/assignments/")
    admin.select_option("#reassign-scene", label="Harbour pier")
    admin.select_option("#reassign-from", label="ann1")
    admin.select_option("#reassign-to", label="ann2")
    admin.click("#reassign-submit")
    expect(admin.locator('#scenes-table tr[data-scene="Harbour pier"] [data-annotator="ann2"]')).to_have_count(1)
    expect(admin.locator('#scenes-table tr[data-scene="Harbour pier"] [data-annotator="ann1"]')).to_have_count(0)
    screenshot(admin, "6-reassigned", full_page=True)

    # then ann1 loses the scene at once: its workspace and its image answer 404, the list drops it
    gone = ann1.goto(f"/scenes/{scene.id}/workspace/")
    assert gone is not None and gone.status == 404
    image = scene.satellite_images.get()
    assert ann1.evaluate(FETCH, [f"/api/satellite/{image.id}/convert/?x=1&y=1", None])["status"] == 404
    ann1.goto("/")
    expect(ann1.locator(f'a[href="/scenes/{scene.id}/"]')).to_have_count(0)
    screenshot(ann1, "7-ann1-after")
    assert list(Assignment.objects.filter(scene=scene).values_list("annotator__username", flat=True)) == ["ann2"]
    assert admin.js_errors == [] and ann1.js_errors == []
