"""CVAA endpoints: the box for a time with the keyframe's stored placement, the list the workspace
fetches once, scoping (404 for scenes a user may not see, 403 without a login or the admin role),
and checkpoint uploads that refuse a corrupt file with the library's reason."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotator.models import CvaaCheckpoint, CvaaPreview, CvaaTraining, MediaJob
from tests.factories import KeyframePlacementFactory, SatelliteImageFactory

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
    # and no placement until the placements job has run
    assert body["frame"]["footprint"] is None
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


def test_the_placement_for_a_time_is_the_nearest_keyframes_on_the_image_asked_for(
    api, annotator, rotterdam_scene, settings
) -> None:
    # given keyframe 2 placed by matching on the scene's image (1 m/px: metres as stored) and keyframe 3
    # placed below the display threshold, and a second image of the scene with keyframe 2 by telemetry
    first = rotterdam_scene.satellite_images.get()
    second = SatelliteImageFactory()
    rotterdam_scene.satellite_images.add(second)
    kf = {k.index: k for k in rotterdam_scene.video.keyframes.all()}
    settings.SKYMARK_PLACEMENT_MIN_CONFIDENCE = 0.5
    KeyframePlacementFactory(
        keyframe=kf[2], satellite_image=first, box=(10, 20, 90, 100), confidence=0.87,
        uncertainty_px=3.2, uncertainty_m=3.2, details={"inliers": 120, "from": None},
    )  # fmt: skip
    KeyframePlacementFactory(keyframe=kf[3], satellite_image=first, source="chaining", confidence=0.2)
    KeyframePlacementFactory(keyframe=kf[2], satellite_image=second, source="telemetry", quad=[[1, 1]] * 4)
    client = api(annotator)
    url = f"/api/scenes/{rotterdam_scene.id}/cvaa/"

    # when the workspace asks for 1.6 s (nearest keyframe: 2), 3 s, and 1.6 s on the second image
    at2 = client.get(url, {"t": 1.6}).json()
    at3 = client.get(url, {"t": 3}).json()["frame"]["footprint"]
    on_second = client.get(url, {"t": 1.6, "image": second.id}).json()

    # then keyframe 2's placement: its quad, source and its words, confidence, error in px and metres
    assert at2["frame"]["index"] == 2 and at2["placement_min_confidence"] == 0.5
    assert at2["frame"]["footprint"] == {
        "source": "matching", "label": "Feature matching on the image",
        "quad": [[10.0, 20.0], [90.0, 20.0], [90.0, 100.0], [10.0, 100.0]],
        "confidence": 0.87, "uncertainty_px": 3.2, "uncertainty_m": 3.2, "shown": True,
        "chained_from": None, "drift": None,
        "relative_to_map": True,  # the row names no map error: its metres are on the map only
    }  # fmt: skip
    # a confidence below the threshold is sent, marked as not shown
    assert (at3["source"], at3["confidence"], at3["shown"]) == ("chaining", 0.2, False)
    # and the second image has its own placement
    assert on_second["image"] == second.id and on_second["frame"]["footprint"]["source"] == "telemetry"
    # an image of no scene of theirs is not found
    assert client.get(url, {"t": 1, "image": SatelliteImageFactory().id}).status_code == 404


def test_the_list_has_every_keyframe_in_a_fixed_number_of_queries(
    api, annotator, previewed, django_assert_num_queries
) -> None:
    # given every keyframe placed
    image = previewed.satellite_images.get()
    for kf in previewed.video.keyframes.all():
        KeyframePlacementFactory(keyframe=kf, satellite_image=image)
    client = api(annotator)
    # the roles, the scene, its image, the model, both jobs, keyframes, previews, placements: none per keyframe
    with django_assert_num_queries(8):
        body = client.get(f"/api/scenes/{previewed.id}/cvaa/previews/").json()
    assert [f["time_s"] for f in body["frames"]] == [0.0, 1.0, 2.0, 3.0]
    assert all(f["cvaa"]["score"] and f["footprint"]["source"] == "matching" for f in body["frames"])
    assert body["image"] == image.id


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
