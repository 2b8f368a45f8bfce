"""Processing reads: the scene page's placement notes, which say what an uploaded track lacks for a
footprint, which keyframes no source placed and which image has no georeference, and stay silent on a
well-placed scene; and Brighton's flight log read without naming columns."""

from __future__ import annotations

from pathlib import Path

from django.core.management import call_command

from annotator.intake.services import SceneSpec, scene_import
from annotator.models import MediaJob, Scene
from annotator.processing.selectors import placement_notes
from tests.factories import (
    KeyframeFactory,
    KeyframePlacementFactory,
    SatelliteImageFactory,
    SceneFactory,
    tiny_video,
)

GEOREF = {"kind": "corners", "crs": "EPSG:4326"}


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
    warning = placement_notes(scene=scene).telemetry
    assert "none of the 2 samples has a height above take-off (height_m)" in warning
    assert "heading" not in warning
    # and the scene page shows it
    client.force_login(admin)
    page = client.get(f"/scenes/{scene.id}/").content.decode()
    assert 'data-testid="telemetry-warning"' in page and "height above take-off (height_m)" in page


def _placed_scene(*, georef: dict | None, placed: int, keyframes: int = 3, telemetry: str = "succeeded") -> Scene:
    """A scene with `keyframes` keyframes, `placed` of them placed on its one image, its telemetry job
    ended in `telemetry` with no samples (no GPMF track, no log) and its placements job succeeded."""
    image = SatelliteImageFactory(original_name="map.tif", georef=georef or {})
    scene = SceneFactory(satellite_images=[image])
    kfs = [KeyframeFactory(video=scene.video, index=i) for i in range(keyframes)]
    for kf in kfs[:placed]:
        KeyframePlacementFactory(keyframe=kf, satellite_image=image)
    MediaJob.objects.create(scene=scene, kind=MediaJob.Kind.TELEMETRY, state=telemetry)
    MediaJob.objects.create(scene=scene, kind=MediaJob.Kind.PLACEMENTS, state="succeeded")
    return scene


def test_a_scene_placed_by_other_sources_says_nothing_about_missing_telemetry(
    db, django_assert_max_num_queries
) -> None:
    # given a georeferenced scene without telemetry whose keyframes control points and matching placed
    scene = _placed_scene(georef=GEOREF, placed=3)
    # then there is nothing to say (the Saro and Kraklanda pages), in a few queries
    with django_assert_max_num_queries(5):
        notes = placement_notes(scene=scene)
    assert (notes.telemetry, notes.images) == ("", [])


def test_keyframes_no_source_placed_are_counted_and_telemetry_named_as_the_way_to_place_them(db) -> None:
    scene = _placed_scene(georef=GEOREF, placed=1)
    notes = placement_notes(scene=scene)
    assert notes.images == [
        "map.tif: 2 of 3 keyframes could not be placed by any source (control points, feature matching, "
        "chaining, telemetry or the learned retriever), so the workspace shows no footprint for them."
    ]
    assert notes.telemetry.startswith("No telemetry: the video has no GPMF track and no flight log was uploaded")
    assert "height above take-off and the heading" in notes.telemetry


def test_an_image_without_georeference_says_its_placements_are_in_pixels_only(db) -> None:
    # given every keyframe placed on an image with no georeference
    notes = placement_notes(scene=_placed_scene(georef=None, placed=3))
    # then it says pixels only, and telemetry (which would need metres) is not offered as a remedy
    assert notes.images == [
        "map.tif has no georeference: placements on it are in its pixels only (no metres), and telemetry "
        "cannot place keyframes on it; add one (GeoTIFF, world file or corner coordinates) to have both."
    ]
    assert notes.telemetry == ""
    # ... and where keyframes are unplaced there, telemetry would not help either
    unplaced = placement_notes(scene=_placed_scene(georef=None, placed=0))
    assert len(unplaced.images) == 2 and unplaced.telemetry == ""


def test_nothing_is_said_before_the_jobs_have_looked(admin) -> None:
    scene = scene_import(
        spec=SceneSpec(name="none", video=tiny_video(), satellite_from_keyframe_s=0.0), created_by=admin
    )
    notes = placement_notes(scene=scene)  # neither the telemetry nor the placements job has run
    assert (notes.telemetry, notes.images) == ("", [])


def test_the_scene_page_shows_the_notes(admin, client) -> None:
    scene = _placed_scene(georef=None, placed=1)
    client.force_login(admin)
    page = client.get(f"/scenes/{scene.id}/").content.decode()
    assert page.count('data-testid="placement-warning"') == 2
    assert "2 of 3 keyframes could not be placed by any source" in page
    assert "has no georeference: placements on it are in its pixels only (no metres)" in page
    assert 'data-testid="telemetry-warning"' not in page


def test_brightons_flight_log_gives_heights_and_headings_without_naming_columns(testdata: Path, admin) -> None:
    # given Brighton's frames.csv uploaded as it is (rel_alt_m, gimbal_yaw_deg), no columns named
    scene = _scene(admin, "brighton", testdata / "brighton_beach" / "frames.csv")

    # then every sample has its height above take-off and heading, and there is nothing to warn about
    samples = list(scene.telemetry.samples.order_by("time_s"))
    assert len(samples) == 18
    assert all(s.height_m is not None and 35 < s.height_m < 45 for s in samples)
    assert (samples[0].height_m, samples[0].heading_deg) == (39.8, 45.0)
    assert placement_notes(scene=scene).telemetry == ""
