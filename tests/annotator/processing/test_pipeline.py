"""The media jobs end to end on real files: each step's rows and stored files, idempotence,
failures with reasons and nothing left behind, and the scene page showing what they found."""

from __future__ import annotations

import csv
import math
import subprocess
from pathlib import Path

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.core.management import call_command

from annotator.intake.manifest import read_manifest
from annotator.intake.services import SceneSpec, scene_import
from annotator.models import Keyframe, MediaJob, SatelliteImage, Scene, TelemetrySample
from annotator.processing.graph import STEPS
from annotator.processing.jobs import Outcome, media_job_run
from tests.factories import stored_files, tiny_video

pytestmark = pytest.mark.django_db

REPO = Path(__file__).resolve().parents[3]
# WGS84 bounds of each GeoTIFF as SOURCES.md gives them: (lon_min, lon_max, lat_min, lat_max).
GEOTIFF_BOUNDS = {
    "spacenet6_rotterdam_pan_0p5m.tif": (4.354709, 4.359147, 51.869146, 51.871893),
    "spacenet6_rotterdam_ms4band_1m_float64.tif": (4.354709, 4.359147, 51.869146, 51.871893),
    "spacenet6_rotterdam_rgb8_1m_derived.tif": (4.354709, 4.359147, 51.869146, 51.871893),
    "webodm_drone_orthophoto_0p5m.tif": (-91.994513, -91.993105, 46.842168, 46.843134),
    "landsat7_bahamas_RGB.byte.tif": (-78.958650, -76.574924, 23.564991, 25.550874),
}


IMAGE_KINDS = ("render", "georeference", "tiles")


def _process(scene: Scene, kinds: tuple[str, ...] = ()) -> None:
    call_command("process_scenes", str(scene.id), *(f"--kind={k}" for k in kinds))


def _states(scene: Scene) -> dict[str, tuple[str, str]]:
    jobs = MediaJob.objects.filter(scene=scene) | MediaJob.objects.filter(satellite_image__scenes=scene)
    return {j.kind: (j.state, j.error or j.detail) for j in jobs.distinct()}


def _metres(lat_deg: float) -> tuple[float, float]:
    """Degrees per metre in longitude and latitude at this latitude."""
    return 1 / (111_320 * math.cos(math.radians(lat_deg))), 1 / 110_574


def test_demo_saro_becomes_a_north_up_orthophoto_with_its_rms(client, admin, annotator) -> None:
    # given the demo manifest's Saro row (a frame warped with six surveyed control points)
    [row] = [r for r in read_manifest(REPO / "demo" / "manifest.json") if r.spec and r.spec.name == "Saro roundabout"]
    assert row.spec is not None
    row.spec.annotators = ["ann"]
    scene = scene_import(spec=row.spec, created_by=admin)

    # when every job runs
    _process(scene)

    # then all succeed, but for the CVAA previews, skipped until there is a model
    states = _states(scene)
    assert {k: s for k, (s, _) in states.items()} == {**dict.fromkeys(STEPS, "succeeded"), "cvaa": "skipped"}, states
    assert states["cvaa"][1].startswith("no active CVAA checkpoint: train one")
    # and only the road corridor counts as data: the warp's transparent border and the frame's own
    # black mask are left out
    assert states["valid_area"][1] == "data on 23% of the image; black or transparent borders left out"
    image = scene.satellite_images.get()
    # and the first frame's footprint is known: the orthophoto is that frame warped, so its corners
    # reach the orthophoto's edges
    footprint = scene.frame_footprints.get()
    assert (footprint.source, footprint.time_s, footprint.satellite_image_id) == ("homography", 0.0, image.id)
    xs, ys = [p[0] for p in footprint.quad], [p[1] for p in footprint.quad]
    assert min(xs) == pytest.approx(0, abs=2) and max(xs) == pytest.approx(image.width, abs=2)
    assert min(ys) == pytest.approx(0, abs=2) and max(ys) == pytest.approx(image.height, abs=2)
    # and the orthophoto carries GeoTIFF tags, checked by the control points at the fit's RMS
    assert image.georef_kind == "geotiff"
    assert image.georef_rms_m == pytest.approx(0.18, abs=0.03)
    assert len(image.gcps) == 6
    # and it is north up: rows run east along the map grid, columns south (no rotation terms)
    (a, b, _), (d, e, _), _ = image.georef["matrix"]
    assert b == 0 and d == 0 and a > 0 and e < 0
    corners = dict(image.corner_list)
    # and it covers the roundabout (SOURCES.md: centre about 57.48435 N, 12.00922 E)
    lats = [ll[0] for ll in corners.values()]
    lons = [ll[1] for ll in corners.values()]
    assert min(lats) < 57.48435 < max(lats) and min(lons) < 12.00922 < max(lons)
    assert image.georef["browser"]["max_error_m"] < 0.05
    assert image.georef["browser"]["m_per_px"] == pytest.approx(0.11, abs=0.03)
    # and tiles exist for the map, with alpha (outside the warped frame) kept as PNG
    assert image.tiles_prefix and image.tile_levels and image.tile_format == "png"
    # and the scene page shows the RMS
    client.force_login(annotator)
    page = client.get(f"/scenes/{scene.id}/").content.decode()
    assert "RMS residual" in page and "0.18 m at 6 control points" in page


@pytest.mark.parametrize("name", sorted(GEOTIFF_BOUNDS))
def test_every_geotiff_is_rendered_georeferenced_and_tiled(testdata: Path, admin, name: str) -> None:
    # given a scene whose satellite image is one of the real GeoTIFFs
    spec = SceneSpec(name=name, video=tiny_video(), satellite=[testdata / "satellite" / name])
    scene = scene_import(spec=spec, created_by=admin)

    # when the image jobs run
    _process(scene, IMAGE_KINDS)

    # then they succeed
    image = scene.satellite_images.get()
    states = _states(scene)
    assert all(states[k][0] == "succeeded" for k in ("render", "georeference", "tiles")), states
    # and its corners lie within 1 m of the bounds SOURCES.md gives
    lon_min, lon_max, lat_min, lat_max = GEOTIFF_BOUNDS[name]
    lats = [ll[0] for _, ll in image.corner_list]
    lons = [ll[1] for _, ll in image.corner_list]
    dlon, dlat = _metres(lat_min)
    assert abs(min(lats) - lat_min) < dlat and abs(max(lats) - lat_max) < dlat
    assert abs(min(lons) - lon_min) < dlon and abs(max(lons) - lon_max) < dlon
    assert image.georef_kind == "geotiff" and image.georef_rms_m is None
    # and an 8-bit display of the same size stands beside the untouched original
    from PIL import Image

    with Image.open(image.display.path) as shown:
        assert shown.size == (image.width, image.height) and shown.mode in ("RGB", "RGBA")
    assert image.file.read() == (testdata / "satellite" / name).read_bytes()


def test_jpeg_without_georeference_is_not_an_error(testdata: Path, admin) -> None:
    spec = SceneSpec(
        name="aero", video=tiny_video(), satellite=[testdata / "satellite" / "opencv_aero1_oblique_aerial.jpg"]
    )
    scene = scene_import(spec=spec, created_by=admin)
    _process(scene, IMAGE_KINDS)
    state, detail = _states(scene)["georeference"]
    assert (state, detail) == ("succeeded", "not georeferenced: no GeoTIFF tags, world file, corners or control points")
    assert scene.satellite_images.get().georef is None


def test_gopro_flight_gets_telemetry_filmstrip_poster_and_no_proxy(testdata: Path, admin, annotator, api) -> None:
    # given the GoPro Karma flight, with its own frame as the image
    spec = SceneSpec(
        name="karma",
        video=testdata / "videos" / "gopro_karma_drone_coast.mp4",
        satellite_from_keyframe_s=1.0,
        annotators=["ann"],
    )
    scene = scene_import(spec=spec, created_by=admin)

    # when the jobs run
    _process(scene)

    # then the GPMF track is stored as a time series that matches the decoded CSV
    states = _states(scene)
    assert states["telemetry"][0] == "succeeded", states
    track = scene.telemetry
    rows = list(csv.DictReader((testdata / "videos" / "gopro_karma_drone_coast_position.csv").open()))
    assert (track.source, track.sample_count) == ("gpmf", len(rows))
    samples = list(TelemetrySample.objects.filter(track=track))
    assert samples[0].lat == pytest.approx(float(rows[0]["latitude"]), abs=1e-6)
    assert samples[-1].lon == pytest.approx(float(rows[-1]["longitude"]), abs=1e-6)
    video = scene.video
    video.refresh_from_db()
    assert video.duration_s is not None
    assert all(0 <= s.time_s <= video.duration_s for s in samples)
    # and a browser plays the H.264 original as is
    assert not video.proxy and states["proxy"][1].startswith("not needed")
    # and the filmstrip and the poster are served to the assigned annotator
    client = api(annotator)
    vtt = client.get(f"/media/scenes/{scene.id}/filmstrip.vtt")
    assert vtt.status_code == 200
    body = b"".join(vtt.streaming_content).decode()
    assert (
        body.startswith("WEBVTT") and body.count("filmstrip.jpg#xywh=") == Keyframe.objects.filter(video=video).count()
    )
    assert client.get(f"/media/scenes/{scene.id}/poster.jpg").status_code == 200


def _mpeg4_avi(tmp_path: Path) -> Path:
    out = tmp_path / "old camera.avi"
    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-nostdin",
            "-f",
            "lavfi",
            "-i",
            "testsrc=size=160x120:rate=10:duration=2",
            "-c:v",
            "mpeg4",
            str(out),
        ],
        check=True,
    )
    return out


def test_mpeg4_avi_gets_a_browser_safe_proxy(tmp_path: Path, admin, annotator, api) -> None:
    # given an MPEG-4 Part 2 AVI, which browsers cannot play
    spec = SceneSpec(name="avi", video=_mpeg4_avi(tmp_path), satellite_from_keyframe_s=0.0, annotators=["ann"])
    scene = scene_import(spec=spec, created_by=admin)

    # when the jobs run
    _process(scene)

    # then an H.264 MP4 proxy is stored and served in place of the original
    video = scene.video
    video.refresh_from_db()
    assert video.proxy and "mpeg4" in video.proxy_reason
    client = api(annotator)
    served = client.get(f"/media/scenes/{scene.id}/video", HTTP_RANGE="bytes=0-99")
    assert served.status_code == 206 and served["Content-Type"] == "video/mp4"
    original = client.get(f"/media/scenes/{scene.id}/video?original=1", HTTP_RANGE="bytes=0-3")
    assert b"".join(original.streaming_content) == b"RIFF"


def test_failed_job_names_the_reason_and_leaves_no_rows_or_files(admin, media_root: Path) -> None:
    # given a scene whose stored video got damaged after the probe
    scene = scene_import(
        spec=SceneSpec(name="damaged", video=tiny_video(), satellite_from_keyframe_s=0.0), created_by=admin
    )
    probe = scene.jobs.get(kind="probe")
    assert media_job_run(job_id=probe.id, step=STEPS["probe"]) is Outcome.SUCCEEDED
    Path(scene.video.file.path).write_bytes(b"\0" * 1000)

    # when keyframes run
    job = scene.jobs.get(kind="keyframes")
    assert media_job_run(job_id=job.id, step=STEPS["keyframes"]) is Outcome.ENDED

    # then the job failed with a reason naming the file, and nothing was written
    job.refresh_from_db()
    assert job.state == "failed" and job.error
    assert not Keyframe.objects.exists()
    assert not [f for f in stored_files(media_root) if f.startswith("keyframes/")]


def test_finished_job_is_not_run_again(admin) -> None:
    scene = scene_import(
        spec=SceneSpec(name="once", video=tiny_video(), satellite_from_keyframe_s=0.0), created_by=admin
    )
    job = scene.jobs.get(kind="probe")
    assert media_job_run(job_id=job.id, step=STEPS["probe"]) is Outcome.SUCCEEDED
    calls = []
    assert media_job_run(job_id=job.id, step=lambda j, p: calls.append(j) or "again") is Outcome.NOT_RUN
    job.refresh_from_db()
    assert (calls, job.attempts, job.state) == ([], 1, "succeeded")


def test_time_limit_ends_in_failed_with_a_reason(admin) -> None:
    scene = scene_import(
        spec=SceneSpec(name="slow", video=tiny_video(), satellite_from_keyframe_s=0.0), created_by=admin
    )
    job = scene.jobs.get(kind="proxy")

    def slow(j, p):  # type: ignore[no-untyped-def]
        raise SoftTimeLimitExceeded()

    assert media_job_run(job_id=job.id, step=slow) is Outcome.ENDED
    job.refresh_from_db()
    assert job.state == "failed" and "time limit" in job.error


def test_admin_retries_a_failed_job_and_others_may_not(admin, annotator, api) -> None:
    scene = scene_import(
        spec=SceneSpec(name="retry", video=tiny_video(), satellite_from_keyframe_s=0.0, annotators=["ann"]),
        created_by=admin,
    )
    job = scene.jobs.get(kind="filmstrip")  # no keyframes yet: fails with a reason
    assert media_job_run(job_id=job.id, step=STEPS["filmstrip"]) is Outcome.ENDED
    assert api(annotator).post(f"/api/jobs/{job.id}/retry/").status_code == 403
    response = api(admin).post(f"/api/jobs/{job.id}/retry/")
    assert response.status_code == 200, response.content
    job.refresh_from_db()
    assert job.state == "pending"


def test_world_file_georeferences_a_png(tmp_path: Path, admin) -> None:
    # given a PNG with a world file in UTM 31N (pixel centre of the top-left pixel, 2 m pixels)
    from tests.factories import png_bytes

    png = tmp_path / "rotterdam.png"
    png.write_bytes(png_bytes(100, 50, 3))
    world = tmp_path / "rotterdam.pgw"
    world.write_text("2.0\n0.0\n0.0\n-2.0\n593271.0\n5747656.0\n")
    spec = SceneSpec(name="wf", video=tiny_video(), satellite=[png], world_file=world, world_file_crs="EPSG:32631")
    scene = scene_import(spec=spec, created_by=admin)

    _process(scene, IMAGE_KINDS)

    image = SatelliteImage.objects.get(scenes=scene)
    assert image.georef_kind == "world_file"
    # the top-left corner is half a pixel up-left of the first pixel's centre: (593270, 5747657)
    from pyproj import Transformer

    want_lon, want_lat = Transformer.from_crs("EPSG:32631", "EPSG:4326", always_xy=True).transform(593270, 5747657)
    lat, lon = dict(image.corner_list)["Top left"]
    assert lat == pytest.approx(want_lat, abs=1e-7) and lon == pytest.approx(want_lon, abs=1e-7)


def test_api_gives_telemetry_georeference_and_conversions(
    testdata: Path, admin, annotator, other_annotator, api
) -> None:
    # given the Saro orthophoto scene, processed, assigned to one annotator
    [row] = [r for r in read_manifest(REPO / "demo" / "manifest.json") if r.spec and r.spec.name == "Saro roundabout"]
    assert row.spec is not None
    row.spec.annotators = ["ann"]
    scene = scene_import(spec=row.spec, created_by=admin)
    _process(scene, IMAGE_KINDS)
    image = scene.satellite_images.get()
    client = api(annotator)

    # the scene API describes the georeference and the tile pyramid
    [shown] = client.get(f"/api/scenes/{scene.id}/").json()["satellite_images"]
    assert shown["georeference"]["kind"] == "geotiff" and shown["georeference"]["rms_m"] == pytest.approx(
        0.18, abs=0.03
    )
    assert shown["tiles"]["url"].endswith("/tiles/{TileGroup}/{z}-{x}-{y}.png")

    # a control point's surveyed lat/lon converts to its pixel and back
    x, y, lat, lon = image.gcps[0]
    to_px = client.get(f"/api/satellite/{image.id}/convert/", {"lat": lat, "lon": lon}).json()
    assert abs(to_px["x"] - x) < 3 and abs(to_px["y"] - y) < 3  # within the fit's 0.18 m RMS (0.11 m/px)
    back = client.get(f"/api/satellite/{image.id}/convert/", {"x": to_px["x"], "y": to_px["y"]}).json()
    assert back["lat"] == pytest.approx(lat, abs=1e-9) and back["lon"] == pytest.approx(lon, abs=1e-9)
    # half a pair is a field error; another annotator's image does not exist for them
    assert client.get(f"/api/satellite/{image.id}/convert/", {"x": 3}).status_code == 400
    assert api(other_annotator).get(f"/api/satellite/{image.id}/convert/", {"x": 1, "y": 1}).status_code == 404
    # no telemetry on this scene: 404 with a reason
    assert client.get(f"/api/scenes/{scene.id}/telemetry/").status_code == 404
