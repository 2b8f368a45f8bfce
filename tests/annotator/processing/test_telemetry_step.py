"""The telemetry step: uploaded CSV and SRT tracks read with their named columns, the height above
take-off kept apart from the altitude above sea level, refusals at import, and the track's API."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from annotator.intake.services import SceneSpec, scene_import
from annotator.models import MediaJob, Scene
from tests.factories import tiny_video


def _process(scene: Scene, kinds: tuple[str, ...] = ()) -> None:
    call_command("process_scenes", str(scene.id), *(f"--kind={k}" for k in kinds))


def test_uploaded_csv_track_replaces_missing_gpmf(tmp_path: Path, admin) -> None:
    track = tmp_path / "flight.csv"
    track.write_text("time_s,lat,lon,alt\n0,57.4844,12.0092,80\n1,57.4845,12.0093,81\n2,57.4846,12.0094,82\n")
    spec = SceneSpec(
        name="csv", video=tiny_video(), satellite_from_keyframe_s=0.0, telemetry=track, telemetry_name="flight.csv"
    )
    scene = scene_import(spec=spec, created_by=admin)
    _process(scene)
    scene.refresh_from_db()
    assert (scene.telemetry.source, scene.telemetry.sample_count) == ("csv", 3)
    assert [s.alt_m for s in scene.telemetry.samples.all()] == [80, 81, 82]


def test_named_columns_are_kept_with_the_track_and_read_by_its_job(tmp_path: Path, admin) -> None:
    # given a logger whose "alt" is the height above take-off, named so at import
    track = tmp_path / "log.csv"
    track.write_text("clock,lat,lon,alt,yaw\n0,57.4844,12.0092,40,10\n1,57.4845,12.0093,41,12\n")
    columns = {"time_s": "clock", "height_m": "alt", "heading_deg": "yaw"}
    spec = SceneSpec(name="log", video=tiny_video(), satellite_from_keyframe_s=0.0, telemetry=track,
                     telemetry_columns=columns)  # fmt: skip
    scene = scene_import(spec=spec, created_by=admin)

    # when its jobs run
    _process(scene, ("telemetry",))

    # then the track keeps the columns, and its samples have heights, not sea-level altitudes
    scene.refresh_from_db()
    assert scene.telemetry.columns == columns
    assert [(s.height_m, s.alt_m, s.heading_deg) for s in scene.telemetry.samples.all()] == [
        (40.0, None, 10.0),
        (41.0, None, 12.0),
    ]


def test_a_track_without_height_says_it_gets_no_footprint(tmp_path: Path, admin) -> None:
    track = tmp_path / "gps.csv"
    track.write_text("time_s,lat,lon,alt_msl_m\n0,57.4844,12.0092,210\n1,57.4845,12.0093,211\n")
    scene = scene_import(
        spec=SceneSpec(name="gps", video=tiny_video(), satellite_from_keyframe_s=0.0, telemetry=track),
        created_by=admin,
    )
    _process(scene, ("telemetry",))
    job = MediaJob.objects.get(scene=scene, kind="telemetry")
    assert job.state == "succeeded"
    assert "no height above take-off, so no telemetry footprint" in job.detail


@pytest.mark.parametrize(
    ("columns", "with_track", "field", "message"),
    [
        ({"height_m": "rel_alt"}, True, "telemetry_columns", "no column 'rel_alt' for height above take-off"),
        ({"lat": "time_s"}, True, "telemetry_columns", "'time_s' is named for latitude; name another column for video"),
        ({"height_m": "alt"}, False, "telemetry_columns", "no telemetry file to read these columns from"),
    ],
)
def test_wrong_columns_are_a_field_error_and_nothing_is_stored(
    tmp_path: Path, admin, media_files, columns: dict, with_track: bool, field: str, message: str
) -> None:
    from django.core.exceptions import ValidationError

    track = tmp_path / "flight.csv"
    track.write_text("time_s,lat,lon,alt\n0,57.4,12.0,80\n")
    spec = SceneSpec(name="csv", video=tiny_video(), satellite_from_keyframe_s=0.0,
                     telemetry=track if with_track else None, telemetry_columns=columns)  # fmt: skip
    with pytest.raises(ValidationError) as err:
        scene_import(spec=spec, created_by=admin)
    assert message in " ".join(err.value.message_dict[field])
    assert media_files() == set() and not Scene.objects.exists()


def test_bad_telemetry_upload_is_a_field_error_and_nothing_is_stored(tmp_path: Path, admin, media_files) -> None:
    from django.core.exceptions import ValidationError

    track = tmp_path / "flight.csv"
    track.write_text("time_s,lat,lon\n0,95.0,12.0\n")
    spec = SceneSpec(name="csv", video=tiny_video(), satellite_from_keyframe_s=0.0, telemetry=track)
    with pytest.raises(ValidationError) as err:
        scene_import(spec=spec, created_by=admin)
    assert "telemetry" in err.value.message_dict
    assert media_files() == set() and not Scene.objects.exists()


def test_telemetry_api_lists_the_track(tmp_path: Path, admin, annotator, api) -> None:
    track = tmp_path / "flight.srt"
    track.write_text(
        "1\n00:00:00,000 --> 00:00:00,033\n[latitude: 57.4844] [longitude: 12.0092] [rel_alt: 80.1 abs_alt: 120.3]\n\n"
        "2\n00:00:01,000 --> 00:00:01,033\n[latitude: 57.4845] [longitude: 12.0093] [rel_alt: 80.5 abs_alt: 120.7]\n"
    )
    spec = SceneSpec(name="srt", video=tiny_video(), satellite_from_keyframe_s=0.0, telemetry=track, annotators=["ann"])
    scene = scene_import(spec=spec, created_by=admin)
    _process(scene, ("telemetry",))
    body = api(annotator).get(f"/api/scenes/{scene.id}/telemetry/").json()
    assert (body["source"], body["sample_count"]) == ("srt", 2)
    assert [(s["time_s"], s["lat"], s["alt_m"]) for s in body["samples"]] == [
        (0.0, 57.4844, 120.3),
        (1.0, 57.4845, 120.7),
    ]
