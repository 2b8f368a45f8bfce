"""Keyframe placements (annotator/processing/cvaa/placements.py): the most trusted source per keyframe,
one row per keyframe and image replacing the scene's old ones at once, and a failure that leaves them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from annotator.models import KeyframePlacement, TelemetrySample, TelemetryTrack
from annotator.processing.cvaa.footprints import frame_footprint_record
from annotator.processing.cvaa.placements import placement_best, placements_build
from media_tools import MediaError
from media_tools.cvaa import matching
from media_tools.cvaa.geometry import GeometricLocator
from media_tools.cvaa.placement import Placement
from media_tools.geo import GeoReference, georef_from_geotiff
from tests.annotator.processing.cvaa.conftest import CROPS, ROTTERDAM, jpeg
from tests.factories import KeyframeFactory, KeyframePlacementFactory, SatelliteImageFactory, SceneFactory

pytestmark = pytest.mark.django_db

SQUARE = np.array([[0, 0], [100, 0], [100, 100], [0, 100]], float)


def _p(source: str, confidence: float, **details: object) -> Placement:
    return Placement(source, SQUARE, (100, 100), confidence, 1.0, details=dict(details))


def test_the_most_trusted_placement_wins_by_the_one_rule(settings) -> None:
    settings.SKYMARK_PLACEMENT_MIN_CONFIDENCE = 0.5
    anchor, matched, chained = _p("control_points", 0.9), _p("matching", 0.8), _p("chaining", 0.95)
    telemetry, learned = _p("telemetry", 0.99), _p("learned", 0.99)
    # an anchor over everything; matching over chaining over telemetry over learned, whatever the numbers
    assert placement_best([learned, telemetry, chained, matched, anchor]) is anchor
    assert placement_best([learned, telemetry, chained, matched]) is matched
    assert placement_best([learned, telemetry, chained]) is chained
    assert placement_best([learned, telemetry]) is telemetry
    assert placement_best([learned, None]) is learned
    assert placement_best([None]) is None
    # below the threshold, or a chain flagged as drifting, comes after any that reaches it
    assert placement_best([_p("matching", 0.3), telemetry]) is telemetry
    assert placement_best([_p("chaining", 0.9, drift=True), telemetry]) is telemetry
    assert placement_best([_p("matching", 0.3), _p("learned", 0.2)]).source == "matching"
    # the same source: the higher confidence
    assert placement_best([_p("matching", 0.6), _p("matching", 0.7)]).confidence == 0.7


def _track(scene, image, *, x: float, y: float) -> None:  # type: ignore[no-untyped-def]
    ref = GeoReference.from_dict(image.georef)
    lon, lat = ref.pixel_to_lonlat(x, y)  # the drone 40 m over (x, y), heading north
    track = TelemetryTrack.objects.create(scene=scene, source="csv", sample_count=2)
    for t in (0.0, 3.0):
        TelemetrySample.objects.create(track=track, time_s=t, lat=lat, lon=lon, height_m=40.0, heading_deg=0.0)


def test_anchor_matching_and_telemetry_place_each_keyframe_with_a_source(
    rotterdam_scene, settings, monkeypatch
) -> None:
    # given the Rotterdam map (1 m/px) whose keyframes are crops of it, keyframe 0's footprint known
    # from control points, and a telemetry track that puts the drone over the map's centre
    settings.SKYMARK_PLACEMENT_MIN_CONFIDENCE = 0.5
    image = rotterdam_scene.satellite_images.get()
    image.georef_rms_m = 1.5
    image.save(update_fields=["georef_rms_m"])
    x1, y1, x2, y2 = CROPS[0]
    anchor = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], float)
    frame_footprint_record(scene=rotterdam_scene, image=image, time_s=0.0, quad=anchor, source="homography")
    _track(rotterdam_scene, image, x=150, y=150)
    progress: list[float] = []
    located: list[tuple[int, ...]] = []  # the frames matched on the map (the real locator, counted)
    locate = GeometricLocator.locate

    def counted(self: GeometricLocator, frame_rgb: np.ndarray, **kw: Any) -> Any:
        located.append(frame_rgb.shape)
        return locate(self, frame_rgb, **kw)

    monkeypatch.setattr(GeometricLocator, "locate", counted)

    # when the scene's keyframes are placed
    run = placements_build(scene=rotterdam_scene, progress=progress.append)

    # then every keyframe has one row on the image with a stated source
    rows = {r.keyframe.index: r for r in KeyframePlacement.objects.select_related("keyframe")}
    assert sorted(rows) == [0, 1, 2, 3]
    assert all(r.source in KeyframePlacement.Source.values for r in rows.values())
    # keyframe 0 by its control points, mapping its own corners onto the anchor, to within the fit's RMS
    kf0 = rows[0]
    assert kf0.source == "control_points" and kf0.uncertainty_m == pytest.approx(1.5, abs=0.01)
    h = np.asarray(kf0.homography)
    corners = np.array([[0, 0, 1], [kf0.frame_width, kf0.frame_height, 1]], float) @ h.T
    assert corners[:, :2] / corners[:, 2:] == pytest.approx(anchor[[0, 2]], abs=0.01)
    assert (kf0.frame_width, kf0.frame_height) == (x2 - x1, y2 - y1)
    # the crops are found where they were cut (matching or chaining beats the telemetry's wrong centre)
    for i in (1, 2, 3):
        assert rows[i].source in ("matching", "chaining"), (i, rows[i].source)
        x1, y1, x2, y2 = CROPS[i]
        assert np.mean(rows[i].quad, axis=0) == pytest.approx([(x1 + x2) / 2, (y1 + y2) / 2], abs=4)
        # 1 m/px, and the map's own 1.5 m RMS added as an independent error
        assert rows[i].uncertainty_m == pytest.approx(np.hypot(rows[i].uncertainty_px, 1.5), rel=0.05)
    assert run.by_source[image.id] and sum(run.by_source[image.id].values()) == 4
    assert progress[-1] == 1.0 and progress == sorted(progress)
    # and each keyframe was matched on the map at most once, the anchored one not at all
    assert len(located) == 3


def test_telemetry_places_what_nothing_better_does_with_its_error_in_metres(rotterdam_scene, settings) -> None:
    # given a keyframe that is no crop of the map (flat grey: nothing to match) and the telemetry track
    settings.SKYMARK_PLACEMENT_MIN_CONFIDENCE = 0.5
    image = rotterdam_scene.satellite_images.get()
    grey = rotterdam_scene.video.keyframes.get(index=2)
    from tests.annotator.processing.cvaa.conftest import jpeg

    default_storage.delete(grey.image.name)
    default_storage.save(grey.image.name, ContentFile(jpeg(np.full((100, 120, 3), 128, np.uint8))))
    _track(rotterdam_scene, image, x=150, y=150)

    # when placed
    placements_build(scene=rotterdam_scene)

    # then the grey keyframe is placed by telemetry, centred under the drone, with an error from the
    # GPS, size and heading errors (about 7 m on a 68 m wide footprint) and a confidence to match
    row = KeyframePlacement.objects.get(keyframe=grey)
    assert row.source == "telemetry" and row.homography is not None
    assert np.mean(row.quad, axis=0) == pytest.approx([150, 150], abs=1)
    assert 4 < row.uncertainty_m < 10 and 0.7 < row.confidence < 0.95


def test_a_run_replaces_the_scenes_rows_and_only_those(rotterdam_scene) -> None:
    # given an old row of this scene (on a keyframe a re-extraction would keep) and a row of another scene
    image = rotterdam_scene.satellite_images.get()
    kf0 = rotterdam_scene.video.keyframes.get(index=0)
    old = KeyframePlacementFactory(keyframe=kf0, satellite_image=image, source="learned", homography=None)
    other = KeyframePlacementFactory(keyframe__video=SceneFactory().video)

    # when the scene is placed again
    placements_build(scene=rotterdam_scene)

    # then the old row is gone, the other scene's is kept
    assert not KeyframePlacement.objects.filter(id=old.id).exists()
    assert KeyframePlacement.objects.filter(id=other.id).exists()
    assert KeyframePlacement.objects.filter(keyframe__video=rotterdam_scene.video).count() >= 1


def test_a_keyframe_that_cannot_be_read_fails_naming_it_and_leaves_the_old_rows(rotterdam_scene) -> None:
    # given placements from an earlier run, then a keyframe image that is no image
    image = rotterdam_scene.satellite_images.get()
    kfs = list(rotterdam_scene.video.keyframes.order_by("index"))
    before = [KeyframePlacementFactory(keyframe=k, satellite_image=image).id for k in kfs]
    default_storage.delete(kfs[3].image.name)
    default_storage.save(kfs[3].image.name, ContentFile(b"not a jpeg"))

    # when placed, the run fails naming the file, and the old rows are all there
    with pytest.raises(MediaError, match=r"000003\.jpg"):
        placements_build(scene=rotterdam_scene)
    assert sorted(KeyframePlacement.objects.values_list("id", flat=True)) == sorted(before)


def test_the_learned_window_is_the_fallback_where_its_box_would_be_shown(
    rotterdam_scene, active_checkpoint, run_previews
) -> None:
    # given a keyframe nothing geometric can place (flat grey), no telemetry, and the retriever's previews
    # with the grey keyframe's box significant and calibrated at 0.7
    from annotator.models import CvaaPreview
    from tests.annotator.processing.cvaa.conftest import jpeg

    grey = rotterdam_scene.video.keyframes.get(index=1)
    default_storage.delete(grey.image.name)
    default_storage.save(grey.image.name, ContentFile(jpeg(np.full((100, 120, 3), 128, np.uint8))))
    assert run_previews(rotterdam_scene).state == "succeeded"
    CvaaPreview.objects.filter(keyframe=grey).update(p_value=1e-6, confidence=0.7)
    preview = CvaaPreview.objects.get(keyframe=grey)

    # when placed
    placements_build(scene=rotterdam_scene)

    # then the grey keyframe has the retriever's best window, marked learned, with its calibrated
    # confidence, no homography to project through, and half the window's diagonal as its error
    row = KeyframePlacement.objects.get(keyframe=grey)
    assert (row.source, row.homography, row.quad) == ("learned", None, preview.quads[0])
    assert row.confidence == 0.7 and row.details["calibrated"] is True
    x1, y1, x2, y2 = preview.boxes[0]
    assert row.uncertainty_px == pytest.approx(np.hypot(x2 - x1, y2 - y1) / 2, abs=0.01)
    assert row.details["checkpoint"] == active_checkpoint.id
    # and the crops beside it keep their geometric placements
    others = KeyframePlacement.objects.exclude(keyframe=grey).values_list("source", flat=True)
    assert set(others) <= {"matching", "chaining"}

    # and where its margin is not significant (a guess), the keyframe is not placed at all
    CvaaPreview.objects.filter(keyframe=grey).update(p_value=0.4)
    placements_build(scene=rotterdam_scene)
    assert not KeyframePlacement.objects.filter(keyframe=grey).exists()


def test_a_flight_log_turned_round_on_one_keyframe_is_named_and_outranked(rotterdam_scene, settings) -> None:
    # given a flight log that puts the drone over each crop's centre, heading north (the map's up) except
    # at 2 s, where its heading is recorded reversed
    from annotator.models import MediaJob
    from annotator.processing.selectors import placement_notes

    settings.SKYMARK_PLACEMENT_MIN_CONFIDENCE = 0.5
    image = rotterdam_scene.satellite_images.get()
    ref = GeoReference.from_dict(image.georef)
    track = TelemetryTrack.objects.create(scene=rotterdam_scene, source="csv", sample_count=4)
    for i, (x1, y1, x2, y2) in enumerate(CROPS):
        lon, lat = ref.pixel_to_lonlat((x1 + x2) / 2, (y1 + y2) / 2)
        heading = 180.0 if i == 2 else 0.0
        TelemetrySample.objects.create(
            track=track, time_s=float(i), lat=lat, lon=lon, height_m=40.0, heading_deg=heading
        )

    # when placed
    placements_build(scene=rotterdam_scene)

    # then matching wins everywhere, and each keyframe's row says how its telemetry compares: the
    # reversed one by 180°, the rest agreeing
    rows = {r.keyframe.index: r for r in KeyframePlacement.objects.select_related("keyframe")}
    assert {r.source for r in rows.values()} <= {"matching", "chaining"}
    checks = {i: r.details["telemetry_check"] for i, r in rows.items()}
    assert [c["agrees"] for _, c in sorted(checks.items())] == [True, True, False, True]
    assert checks[2]["heading_deg"] == pytest.approx(180, abs=3) and checks[2]["centre_m"] < 3
    # and once the job has ended the scene page names the keyframe and the likely cause
    for kind in (MediaJob.Kind.TELEMETRY, MediaJob.Kind.PLACEMENTS):
        MediaJob.objects.create(scene=rotterdam_scene, kind=kind, state="succeeded")
    notes = placement_notes(scene=rotterdam_scene).images
    assert len(notes) == 1
    assert notes[0].startswith("rotterdam.tif: the flight log disagrees with matching on 1 of 4 keyframes (at 2 s)")
    assert re.search(r"its heading is turned 1[78]\d° on 1 of them \(a yaw recorded reversed\?\)", notes[0])


def test_the_error_in_metres_adds_the_maps_own_georeference_error_where_it_is_known(rotterdam_scene) -> None:
    image = rotterdam_scene.satellite_images.get()
    # unknown (a GeoTIFF without control points): the error on the map alone, and the row says so
    placements_build(scene=rotterdam_scene)
    row = KeyframePlacement.objects.get(keyframe__index=1)
    assert row.details["map_error_m"] is None
    assert row.uncertainty_m == pytest.approx(row.uncertainty_px * 1.0, abs=0.01)  # 1 m/px
    # known (control points checked it to 2.0 m RMS): both, as independent errors
    image.georef_rms_m = 2.0
    image.save(update_fields=["georef_rms_m"])
    placements_build(scene=rotterdam_scene)
    row = KeyframePlacement.objects.get(keyframe__index=1)
    assert row.details["map_error_m"] == 2.0
    assert row.uncertainty_m == pytest.approx(np.hypot(row.uncertainty_px, 2.0), abs=0.01)


PAN = [(40 + 12 * k, 60, 200 + 12 * k, 180) for k in range(4)]  # 160 x 120 crops panning east by 12 px


def test_matching_and_chaining_share_one_description_per_keyframe(
    testdata: Path, rotterdam: np.ndarray, monkeypatch
) -> None:
    # given a scene whose keyframes pan across the Rotterdam map, where matching places keyframe 0 only
    path = testdata / ROTTERDAM
    image = SatelliteImageFactory(
        original_name="rotterdam.tif", width=300, height=300, content=path.read_bytes(),
        georef=georef_from_geotiff(path).to_dict(),
    )  # fmt: skip
    scene = SceneFactory(satellite_images=[image])
    for i, (x1, y1, x2, y2) in enumerate(PAN):
        pixels = ContentFile(jpeg(rotterdam[y1:y2, x1:x2]))
        name = default_storage.save(f"keyframes/v{scene.video_id}/{i:06d}.jpg", pixels)
        KeyframeFactory(video=scene.video, index=i, time_s=float(i), image=name)
    found: list[Placement | None] = []
    locate, describe = GeometricLocator.locate, matching.sift_features
    described: list[tuple[int, ...]] = []

    def first_only(self: GeometricLocator, frame_rgb: np.ndarray, **kw: Any) -> Any:
        found.append(locate(self, frame_rgb, **kw))  # the real work, on the features the job describes
        return found[-1] if len(found) == 1 else None

    def counted(pixels: np.ndarray, **kw: Any) -> Any:
        described.append(pixels.shape)
        return describe(pixels, **kw)

    monkeypatch.setattr(GeometricLocator, "locate", first_only)
    monkeypatch.setattr(matching, "sift_features", counted)

    # when the scene's keyframes are placed
    placements_build(scene=scene)

    # then chaining carries keyframe 0's match to the others, where the crops were cut
    rows = {r.keyframe.index: r for r in KeyframePlacement.objects.select_related("keyframe")}
    assert rows[0].source == "matching" and found[0] is not None
    for i in (1, 2, 3):
        assert rows[i].source == "chaining", (i, rows[i].source)
        x1, y1, x2, y2 = PAN[i]
        assert np.mean(rows[i].quad, axis=0) == pytest.approx([(x1 + x2) / 2, (y1 + y2) / 2], abs=4)
    # and each keyframe was described once, for matching and chaining together
    assert described.count((120, 160, 3)) == len(PAN)


def test_where_whole_map_matching_finds_nothing_the_retrievers_windows_say_where_to_look(
    rotterdam_scene, active_checkpoint, run_previews, monkeypatch
) -> None:
    # given the retriever's previews, keyframe 1's rewritten: a wrong window first, its true place second;
    # and whole-map matching that finds nothing for keyframe 1 (as on a map too large or too different)
    from annotator.models import CvaaPreview

    assert run_previews(rotterdam_scene).state == "succeeded"
    kf1 = rotterdam_scene.video.keyframes.get(index=1)
    x1, y1, x2, y2 = CROPS[1]
    wrong, true = CROPS[2], (x1, y1, x2, y2)
    quads = [[[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]] for b in (wrong, true)]
    CvaaPreview.objects.filter(keyframe=kf1).update(quads=quads, boxes=[list(wrong), list(true)], p_value=0.5)
    from annotator.processing.cvaa.keyframe_pixels import KeyframePixels

    pixels = KeyframePixels([kf1])[0]
    locate = GeometricLocator.locate
    searched: list[bool] = []

    def whole_map_blind(self: GeometricLocator, frame_rgb: np.ndarray, **kw: Any) -> Any:
        if np.array_equal(frame_rgb, pixels):  # keyframe 1
            searched.append(kw.get("near") is not None)
            if kw.get("near") is None:
                return None
        return locate(self, frame_rgb, **kw)

    monkeypatch.setattr(GeometricLocator, "locate", whole_map_blind)

    # when placed
    placements_build(scene=rotterdam_scene)

    # then keyframe 1 is placed by matching near the retriever's second window, where it was cut, and
    # says which window led there, though the retriever's own box would not be shown (p = 0.5)
    row = KeyframePlacement.objects.get(keyframe=kf1)
    assert row.source == "matching" and row.details["retriever_rank"] == 2
    assert np.mean(row.quad, axis=0) == pytest.approx([(x1 + x2) / 2, (y1 + y2) / 2], abs=4)
    # (the whole map first, then near the windows: never the whole map again)
    assert searched[0] is False and all(searched[1:]) and len(searched) >= 2, searched
