"""CVAA endpoints: the box for a time with its source-labelled footprint, the list the workspace
fetches once, scoping (404 for scenes a user may not see, 403 without a login or the admin role),
and checkpoint uploads that refuse a corrupt file with the library's reason."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotator.models import CvaaCheckpoint, CvaaPreview, CvaaTraining, MediaJob, TelemetrySample, TelemetryTrack
from annotator.processing.cvaa.footprints import frame_footprint_record
from media_tools.geo import GeoReference
from tests.annotator.processing.cvaa.conftest import CROPS

pytestmark = pytest.mark.django_db


@pytest.fixture
def previewed(rotterdam_scene, active_checkpoint, run_previews):  # type: ignore[no-untyped-def]
    assert run_previews(rotterdam_scene).state == "succeeded"
    return rotterdam_scene


def test_the_box_for_a_time_is_the_nearest_keyframes_with_its_score(api, annotator, previewed) -> None:
    # given keyframes at 0, 1, 2, 3 s with previews
    expected = CvaaPreview.objects.get(keyframe__index=2)

    # when the annotator asks for 1.6 s (nearest keyframe: 2 s)
    response = api(annotator).get(f"/api/scenes/{previewed.id}/cvaa/", {"t": 1.6})

    # then the answer is keyframe 2's best box with its score and the display threshold
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["t"], body["frame"]["index"], body["frame"]["time_s"]) == (1.6, 2, 2.0)
    cvaa = body["frame"]["cvaa"]
    assert (cvaa["box"], cvaa["score"], cvaa["source"]) == (expected.boxes[0], expected.score, "cvaa")
    assert cvaa["boxes"] == expected.boxes
    # and its evidence: the uploaded checkpoint has no calibration, so the significance test alone decides
    assert (cvaa["margin_z"], cvaa["p_value"], cvaa["confidence"]) == (expected.margin_z, expected.p_value, None)
    assert expected.p_value is not None and cvaa["shown"] == (expected.p_value < body["significance"])
    assert (body["calibrated"], body["significance"], body["min_confidence"]) == (False, 0.01, 0.5)
    # and with no better source, the footprint is the CVAA box itself, labelled so
    assert body["frame"]["footprint"] == {
        "source": "cvaa", "label": "CVAA retrieval", "quad": expected.quads[0], "score": expected.score,
        "confidence": None, "shown": cvaa["shown"],
    }  # fmt: skip
    assert body["checkpoint"]["sha256"] == expected.checkpoint.sha256
    assert body["job"]["state"] == "succeeded"


def test_a_box_is_shown_only_when_its_margin_is_significant_and_its_calibrated_confidence_enough(
    api, annotator, previewed, settings
) -> None:
    from media_tools.cvaa import evidence
    from media_tools.cvaa.windows import window_boxes

    # given score maps over the image's windows: flat (every window alike, as an untrained model gives)
    # and peaked (one window stands out), their evidence stored on keyframes 0 and 1
    boxes = window_boxes(300, 300, 60, 0.5)
    flat = 0.94 + np.random.default_rng(0).normal(0, 0.003, len(boxes))
    peaked = flat.copy()
    peaked[40] += 0.05
    for index, scores in ((0, flat), (1, peaked)):
        ev = evidence(scores, boxes)
        CvaaPreview.objects.filter(keyframe__index=index).update(margin_z=ev.margin_z, p_value=ev.p_value)
    # and keyframes 2 and 3 peaked too, calibrated at 0.9 and 0.2
    for index, confidence in ((2, 0.9), (3, 0.2)):
        CvaaPreview.objects.filter(keyframe__index=index).update(p_value=1e-6, confidence=confidence)

    frames = api(annotator).get(f"/api/scenes/{previewed.id}/cvaa/previews/").json()["frames"]

    # then the flat one is hidden, the peaked one shown; of the calibrated, only the one above 0.5
    assert [f["cvaa"]["shown"] for f in frames] == [False, True, True, False]
    # and lowering the confidence the setting asks for shows the last one too
    settings.SKYMARK_CVAA_MIN_CONFIDENCE = 0.1
    frames = api(annotator).get(f"/api/scenes/{previewed.id}/cvaa/previews/").json()["frames"]
    assert [f["cvaa"]["shown"] for f in frames] == [False, True, True, True]


def test_a_known_footprint_is_preferred_and_labelled_with_its_source(api, annotator, previewed) -> None:
    # given the first keyframe's footprint known from the image (a homography) and a telemetry track
    image = previewed.satellite_images.get()
    x1, y1, x2, y2 = CROPS[0]
    quad = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], float)
    frame_footprint_record(scene=previewed, image=image, time_s=0.0, quad=quad, source="homography")
    ref = GeoReference.from_dict(image.georef)
    lon, lat = ref.pixel_to_lonlat(150.0, 150.0)  # the drone 40 m above the image centre, heading north
    track = TelemetryTrack.objects.create(scene=previewed, source="csv", sample_count=2)
    for t in (0.0, 3.0):
        TelemetrySample.objects.create(track=track, time_s=t, lat=lat, lon=lon, height_m=40.0, heading_deg=0.0)
    client = api(annotator)

    # when it asks for 0 s and for 2 s
    at0 = client.get(f"/api/scenes/{previewed.id}/cvaa/", {"t": 0}).json()["frame"]
    at2 = client.get(f"/api/scenes/{previewed.id}/cvaa/", {"t": 2}).json()["frame"]

    # then 0 s has the homography (best), 2 s the telemetry footprint: centred under the drone, as wide
    # as 2 x 40 m x tan(81 deg / 2) = 68 m (1 m/px) and 4:3 like the video, turned ~1 deg by the
    # grid's convergence from true north; the CVAA box stays beside both
    assert at0["footprint"] == {"source": "homography", "label": "homography (control points)", "quad": quad.tolist()}
    assert at2["footprint"]["source"] == "telemetry" and at2["footprint"]["label"].startswith("telemetry")
    tele = np.array(at2["footprint"]["quad"])
    assert tele.mean(axis=0) == pytest.approx([150, 150], abs=1)
    assert np.ptp(tele[:, 0]) == pytest.approx(68.3, abs=2) and np.ptp(tele[:, 1]) == pytest.approx(51.2, abs=2)
    assert at0["cvaa"]["source"] == at2["cvaa"]["source"] == "cvaa"


def test_the_list_has_every_keyframe_in_a_fixed_number_of_queries(
    api, annotator, previewed, django_assert_num_queries
) -> None:
    client = api(annotator)
    with django_assert_num_queries(9):
        body = client.get(f"/api/scenes/{previewed.id}/cvaa/previews/").json()
    assert [f["time_s"] for f in body["frames"]] == [0.0, 1.0, 2.0, 3.0]
    assert all(f["cvaa"]["score"] == f["footprint"]["score"] for f in body["frames"])
    assert body["image"] == previewed.satellite_images.get().id


def test_the_list_is_for_the_image_asked_for_among_the_scenes(api, annotator, previewed) -> None:  # type: ignore[no-untyped-def]
    # given a second image added to the scene after its previews were computed on the first
    from tests.factories import SatelliteImageFactory

    first = previewed.satellite_images.get()
    second = SatelliteImageFactory()
    previewed.satellite_images.add(second)
    client = api(annotator)
    url = f"/api/scenes/{previewed.id}/cvaa/previews/"

    # when the workspace asks for each image's previews
    on_first = client.get(url, {"image": first.id}).json()
    on_second = client.get(url, {"image": second.id}).json()

    # then each answer is for the image named: the first has its boxes, the second none yet
    assert (on_first["image"], on_second["image"]) == (first.id, second.id)
    assert all(f["cvaa"] is not None for f in on_first["frames"])
    assert [f["cvaa"] for f in on_second["frames"]] == [None] * 4
    # and an image of no scene of theirs is not found, a word is no image id
    assert client.get(url, {"image": SatelliteImageFactory().id}).status_code == 404
    junk = client.get(url, {"image": "first"})
    assert junk.status_code == 400 and "image" in junk.json()


def test_without_a_model_the_list_says_so_and_has_no_boxes(api, annotator, rotterdam_scene, run_previews) -> None:
    run_previews(rotterdam_scene)
    body = api(annotator).get(f"/api/scenes/{rotterdam_scene.id}/cvaa/previews/").json()
    assert body["checkpoint"] is None and body["job"]["state"] == "skipped"
    assert all(f["cvaa"] is None and f["footprint"] is None for f in body["frames"])


def test_scenes_out_of_scope_are_not_found_and_a_time_is_required(api, annotator, other_annotator, previewed) -> None:
    url = f"/api/scenes/{previewed.id}/cvaa/"
    assert api(other_annotator).get(url, {"t": 1}).status_code == 404
    assert api(other_annotator).get(url + "previews/").status_code == 404
    assert api().get(url, {"t": 1}).status_code == 403
    missing = api(annotator).get(url)
    assert missing.status_code == 400 and "t" in missing.json()
    negative = api(annotator).get(url, {"t": -2})
    assert negative.status_code == 400 and "t" in negative.json()


def test_a_corrupt_checkpoint_upload_is_refused_with_the_reason_and_leaves_nothing(
    api, admin, tiny_bytes, media_files
) -> None:
    before = media_files()
    upload = SimpleUploadedFile("mine.pt", tiny_bytes[:5000])
    response = api(admin).post("/api/cvaa/checkpoints/", {"file": upload}, format="multipart")
    assert response.status_code == 400
    [message] = response.json()["file"]
    assert message.startswith("mine.pt: not a CVAA checkpoint (cannot be read")
    assert not CvaaCheckpoint.objects.exists() and media_files() == before
    text = api(admin).post(
        "/api/cvaa/checkpoints/", {"file": SimpleUploadedFile("notes.pt", b"hello")}, format="multipart"
    )
    assert text.status_code == 400 and text.json()["file"][0].startswith("notes.pt: not a CVAA checkpoint")


def test_an_admin_uploads_a_checkpoint_which_becomes_active_and_previews_follow(
    api, admin, annotator, rotterdam_scene, tiny_bytes, django_capture_on_commit_callbacks
) -> None:
    MediaJob.objects.create(scene=rotterdam_scene, kind="cvaa", state="skipped")
    upload = SimpleUploadedFile("mine.pt", tiny_bytes)
    with django_capture_on_commit_callbacks() as callbacks:
        response = api(admin).post("/api/cvaa/checkpoints/", {"file": upload}, format="multipart")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["origin"], body["active"], body["original_name"]) == ("uploaded", True, "mine.pt")
    assert MediaJob.objects.get(scene=rotterdam_scene, kind="cvaa").state == "pending"
    assert len(callbacks) == 1  # the scene's preview job, sent after commit
    # the same weights again give the same checkpoint
    again = api(admin).post("/api/cvaa/checkpoints/", {"file": SimpleUploadedFile("b.pt", tiny_bytes)})
    assert again.status_code == 200 and again.json()["id"] == body["id"]
    # and only admins may upload or list
    assert api(annotator).post("/api/cvaa/checkpoints/", {"file": upload}).status_code == 403
    assert api(annotator).get("/api/cvaa/checkpoints/").status_code == 403


def test_a_training_seed_past_the_32_bit_column_is_refused_on_its_field(api, admin) -> None:  # type: ignore[no-untyped-def]
    # Given an admin; when a form body asks for a seed the 32-bit column cannot hold
    response = api(admin).post("/api/cvaa/trainings/", {"seed": str(2**40)})
    # then the field says so and no run is queued
    assert response.status_code == 400 and "seed" in response.json()
    assert not CvaaTraining.objects.exists()
