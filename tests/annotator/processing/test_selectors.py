"""Processing reads: the scene page's telemetry warning, which says what a track lacks for a footprint
(or that there is none) instead of staying silent; and Brighton's flight log read without naming columns."""

from __future__ import annotations

from pathlib import Path

from django.core.management import call_command

from annotator.intake.services import SceneSpec, scene_import
from annotator.models import Scene
from annotator.processing.selectors import telemetry_warning
from tests.factories import tiny_video


def _scene(admin, name: str, track: Path | None = None) -> Scene:  # type: ignore[no-untyped-def]
    spec = SceneSpec(name=name, video=tiny_video(), satellite_from_keyframe_s=0.0, telemetry=track)
    scene = scene_import(spec=spec, created_by=admin)
    call_command("process_scenes", str(scene.id), "--kind=probe", "--kind=telemetry")
    return scene


def test_a_track_without_height_is_named_on_the_scene_page(tmp_path: Path, admin, client) -> None:
    # given a GPS log with a sea-level altitude but no height above take-off, and a heading
    track = tmp_path / "gps.csv"
    track.write_text("time_s,lat,lon,alt_msl_m,yaw\n0,57.4844,12.0092,210,5\n1,57.4845,12.0093,211,6\n")
    scene = _scene(admin, "gps", track)

    # then the warning names the missing field, not the heading it has
    warning = telemetry_warning(scene=scene)
    assert "none of the 2 samples has a height above take-off (height_m)" in warning
    assert "heading" not in warning
    # and the scene page shows it
    client.force_login(admin)
    page = client.get(f"/scenes/{scene.id}/").content.decode()
    assert 'data-testid="telemetry-warning"' in page and "height above take-off (height_m)" in page


def test_no_telemetry_at_all_is_said_once_the_job_has_looked(admin) -> None:
    scene = scene_import(
        spec=SceneSpec(name="none", video=tiny_video(), satellite_from_keyframe_s=0.0), created_by=admin
    )
    assert telemetry_warning(scene=scene) == ""  # the telemetry job has not run: nothing to say yet
    call_command("process_scenes", str(scene.id), "--kind=probe", "--kind=telemetry")
    assert telemetry_warning(scene=scene).startswith("No usable telemetry: the video has no GPMF track")


def test_brightons_flight_log_gives_heights_and_headings_without_naming_columns(testdata: Path, admin) -> None:
    # given Brighton's frames.csv uploaded as it is (rel_alt_m, gimbal_yaw_deg), no columns named
    scene = _scene(admin, "brighton", testdata / "brighton_beach" / "frames.csv")

    # then every sample has its height above take-off and heading, and there is nothing to warn about
    samples = list(scene.telemetry.samples.order_by("time_s"))
    assert len(samples) == 18
    assert all(s.height_m is not None and 35 < s.height_m < 45 for s in samples)
    assert (samples[0].height_m, samples[0].heading_deg) == (39.8, 45.0)
    assert telemetry_warning(scene=scene) == ""
