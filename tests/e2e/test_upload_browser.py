"""The scene upload page as an admin uses it: a CSV track's columns previewed and named (Brighton's
height above take-off), a refused field that keeps every chosen file, then the scene created."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotator.models import Scene

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_upload_names_track_columns_and_keeps_files_when_refused(
    testdata: Path, make_user, eager_celery, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    # given an admin on the upload page with the Brighton clip, its map and its per-photo log
    make_user("boss", "admin")
    make_user("ann", "annotator")
    folder = testdata / "brighton_beach"
    page = login("boss")
    page.goto("/scenes/upload/")
    page.set_input_files("#id_video", str(folder / "brighton_beach_1fps.mp4"))
    page.set_input_files("#id_satellite", str(folder / "brighton_beach_ortho_utm15n.tif"))
    page.set_input_files("#id_telemetry", str(folder / "frames.csv"))

    # when the track is chosen / then its first rows show with a column guessed for each field
    expect(page.locator("#telemetry-preview tbody tr")).to_have_count(5)
    expect(page.locator("#col-height_m")).to_have_value("rel_alt_m")
    expect(page.locator("#col-heading_deg")).to_have_value("gimbal_yaw_deg")
    # the admin says the airframe's yaw is the camera's heading here
    page.select_option("#col-heading_deg", "flight_yaw_deg")
    screenshot(page, "columns", full_page=True)

    # when sent without a name / then the name is refused and every file is still chosen
    page.click("#upload-submit")
    expect(page.locator("#field-name .errorlist")).to_contain_text("required")
    expect(page.locator("#form-errors-live")).to_be_visible()
    for field in ("video", "satellite", "telemetry"):
        assert page.eval_on_selector(f"#id_{field}", "e => e.files.length") == 1, field
    assert not Scene.objects.exists()

    # when named and sent again
    page.fill("#id_name", "Brighton Beach")
    page.fill("#id_license", "BSD-2-Clause")
    page.click("#upload-submit")
    page.wait_for_url(lambda url: "/upload/" not in url)

    # then the scene keeps the licence and the columns, and its samples have heights above take-off
    scene = Scene.objects.get(name="Brighton Beach")
    assert scene.source_license == "BSD-2-Clause"
    assert scene.telemetry.columns["heading_deg"] == "flight_yaw_deg"
    heights = [s.height_m for s in scene.telemetry.samples.all()]
    assert len(heights) == 18 and all(39 < h < 41 for h in heights)
    screenshot(page, "scene", full_page=True)
    assert page.js_errors == []
