"""annotator.marking.assist through its API: a click tracked into a draft trajectory on the map, the
draft corrected and confirmed, cancel, failures with a reason, the batch, and who may do what."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from django.core.exceptions import ValidationError

from annotator.compiling.batch import items_compile_all
from annotator.compiling.services import item_compile
from annotator.models import Item, Mark, TrackingJob
from tests.factories import MarkFactory

from .conftest import H, centre

pytestmark = pytest.mark.django_db


def _start(client: Any, scene: Any, **body: Any) -> Any:
    image = scene.satellite_images.get()
    return client.post(
        f"/api/scenes/{scene.id}/tracks/",
        {"satellite_image": image.id, "label": "car", "time_s": 0.0, "duration_s": 5.0, **body},
        format="json",
    )


def _tracked(client: Any, scene: Any, capture: Any, **body: Any) -> dict[str, Any]:
    with capture(execute=True):
        r = _start(client, scene, **body)
    assert r.status_code == 202, r.json()
    return client.get(f"/api/tracks/{r.json()['id']}/").json()


def test_a_click_becomes_a_draft_trajectory_on_the_map(
    annotator, api, square_scene, celery_eager, django_capture_on_commit_callbacks
) -> None:
    # when the annotator clicks the square on the first frame and tracks it forward
    job = _tracked(api(annotator), square_scene, django_capture_on_commit_callbacks, box=[40, 40, 24, 24])

    # then the job succeeded and left a draft polyline by them, one vertex per frame, on the map
    assert job["state"] == "succeeded", job
    assert job["progress"] == 100
    mark = Mark.objects.get(id=job["mark"])
    assert mark.draft and mark.kind == "polyline" and mark.author == annotator and mark.label == "car"
    assert len(mark.vertex_times) == 20
    truth = [(H @ [*centre(i), 1.0])[:2] for i in range(20)]
    got = np.asarray(mark.geometry["coordinates"])
    assert np.abs(got - truth).max() < 0.75  # within 1.5 video px, halved by the homography
    v = job["vertices"][5]
    assert v["source"] == "control_points" and v["uncertainty_px"] >= 1.0
    assert v["uncertainty_m"] is None  # the test image has no georeference: no metres are claimed


def test_a_draft_is_corrected_by_a_mark_edit_confirmed_and_only_then_compiled(
    annotator, api, square_scene, celery_eager, django_capture_on_commit_callbacks
) -> None:
    client = api(annotator)
    job = _tracked(client, square_scene, django_capture_on_commit_callbacks, box=[40, 40, 24, 24])
    mark = client.get(f"/api/marks/{job['mark']}/").json()
    assert mark["draft"] is True
    # the job that drew it, for its sources and uncertainty after a reload
    assert client.get(f"/api/marks/{mark['id']}/track/").json()["id"] == job["id"]
    # a draft cannot make an item, alone or in a batch compile
    with pytest.raises(ValidationError, match="draft trajectory"):
        item_compile(user=annotator, task=Item.Task.TRAJECTORY_MATCHING, mark_ids=[mark["id"]])
    assert items_compile_all(user=annotator, scene_id=square_scene.id).items == []

    # when the annotator drops an outlier vertex (the third) through the ordinary edit
    coords = mark["geometry"]["coordinates"]
    times = mark["vertex_times"]
    edit = {"version": mark["version"], "geometry": {"type": "LineString", "coordinates": coords[:2] + coords[3:]},
            "vertex_times": times[:2] + times[3:]}  # fmt: skip
    edited = client.patch(f"/api/marks/{mark['id']}/", edit, format="json").json()
    assert len(edited["vertex_times"]) == 19 and edited["draft"] is True

    # a stale confirm is refused with the mark as it is now; the current one confirms it
    stale = client.post(f"/api/marks/{mark['id']}/confirm/", {"version": mark["version"]}, format="json")
    assert stale.status_code == 409
    done = client.post(f"/api/marks/{mark['id']}/confirm/", {"version": edited["version"]}, format="json")
    assert done.status_code == 200 and done.json()["draft"] is False
    again = client.post(f"/api/marks/{mark['id']}/confirm/", {"version": done.json()["version"]}, format="json")
    assert again.status_code == 400 and "not a draft" in again.json()["mark"][0]
    # confirmed, it compiles like a drawn trajectory
    assert [i.task for i in items_compile_all(user=annotator, scene_id=square_scene.id).items] != []


def test_a_pending_job_is_cancelled_and_a_finished_one_cannot_be(
    annotator, api, square_scene, celery_eager, django_capture_on_commit_callbacks
) -> None:
    client = api(annotator)
    pending = _start(client, square_scene, point=[40, 40]).json()  # never sent: no on-commit run here
    r = client.post(f"/api/tracks/{pending['id']}/cancel/")
    assert r.status_code == 200 and r.json()["state"] == "cancelled"
    assert not Mark.objects.filter(scene=square_scene).exists()
    done = _tracked(client, square_scene, django_capture_on_commit_callbacks, box=[40, 40, 24, 24])
    assert client.post(f"/api/tracks/{done['id']}/cancel/").status_code == 409


def test_a_target_that_cannot_be_followed_fails_with_a_reason(
    annotator, api, square_scene, celery_eager, django_capture_on_commit_callbacks
) -> None:
    # a click on the flat background far from the square
    job = _tracked(api(annotator), square_scene, django_capture_on_commit_callbacks, point=[140, 100])
    assert job["state"] == "failed"
    assert "no texture" in job["error"]
    assert job["mark"] is None and not Mark.objects.filter(scene=square_scene).exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "point"),
        ({"point": [400, 40]}, "point"),
        ({"box": [40, 40, 4, 4]}, "box"),
        ({"point": [40, 40], "label": "spaceship"}, "label"),
        ({"point": [40, 40], "duration_s": 600}, "duration_s"),
        ({"point": [40, 40], "time_s": 50}, "time_s"),
    ],
)
def test_bad_requests_name_the_field(annotator, api, square_scene, body, field) -> None:
    r = _start(api(annotator), square_scene, **body)
    assert r.status_code == 400 and field in r.json(), r.json()
    assert not TrackingJob.objects.exists()


def test_an_image_nothing_places_the_video_on_is_refused(annotator, api, square_scene) -> None:
    square_scene.satellite_images.get().keyframe_placements.all().delete()
    r = _start(api(annotator), square_scene, point=[40, 40])
    assert r.status_code == 400 and "placed" in r.json()["satellite_image"][0]


def test_every_target_of_a_label_in_a_clip_gets_a_draft(
    annotator, api, square_scene, celery_eager, django_capture_on_commit_callbacks
) -> None:
    # given the annotator marked the square once, at 0.5 s, as a point on the map
    image = square_scene.satellite_images.get()
    at = (H @ [*centre(5), 1.0])[:2]
    point = {"type": "Point", "coordinates": [float(at[0]), float(at[1])]}
    target = MarkFactory(
        scene=square_scene, author=annotator, kind="point", geometry=point, label="car", time_start=0.5
    )
    MarkFactory(scene=square_scene, author=annotator, kind="point", geometry=point, label="bus", time_start=0.5)
    client = api(annotator)
    with django_capture_on_commit_callbacks(execute=True):
        r = client.post(
            f"/api/scenes/{square_scene.id}/tracks/batch/",
            {"satellite_image": image.id, "label": "car", "start_s": 0.0, "end_s": 1.9},
            format="json",
        )
    assert r.status_code == 202
    [job] = r.json()
    assert job["from_mark"] == target.id and job["direction"] == "both"
    done = client.get(f"/api/tracks/{job['id']}/").json()
    assert done["state"] == "succeeded", done
    draft = Mark.objects.get(id=done["mark"])
    assert draft.draft and draft.vertex_times[0] == pytest.approx(0.0) and len(draft.vertex_times) == 20


def test_a_job_is_its_authors_alone(annotator, other_annotator, api, square_scene) -> None:
    job = _start(api(annotator), square_scene, point=[40, 40]).json()
    square_scene.assignments.create(annotator=other_annotator)
    assert api(other_annotator).get(f"/api/tracks/{job['id']}/").status_code == 404
    assert api(other_annotator).post(f"/api/tracks/{job['id']}/cancel/").status_code == 404
