"""Through the API, on the demo's Saro roundabout (an orthophoto georeferenced by six surveyed
points): marks drawn as the workspace sends them, an item of each of the 12 tasks, every model view
rendered, then everything else the marks allow, and the audit's figures for that set."""

from __future__ import annotations

import json
from collections import Counter
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command
from PIL import Image
from shapely.geometry import shape

from annotator.intake.manifest import read_manifest
from annotator.intake.services import scene_import
from annotator.models import Item, ModelView, Scene
from media_tools.imagery import candidates_box
from tests.annotator.compiling.builders import candidate_shape

pytestmark = pytest.mark.django_db
T = Item.Task
REPO = Path(__file__).resolve().parents[3]
OPTIONS = {T.TARGET_VISIBILITY: 2, T.SCENE_ASSOCIATION: 4, T.ZONE_COUNTING: 0, T.EVENT_GEOLOCALIZATION: 4,
           T.TRAJECTORY_MATCHING: 4, T.TEMPORAL_GROUNDING: 0, T.RELATIVE_DISTANCE: 5, T.RELATIVE_DIRECTION: 8,
           T.OCCLUSION_ATTRIBUTION: 4, T.SPATIOTEMPORAL_ORDERING: 6, T.REGION_INTERACTION: 3,
           T.REGION_REACHABILITY: 2}  # fmt: skip


@pytest.fixture
def saro(admin: Any, annotator: Any) -> Scene:
    [row] = [r for r in read_manifest(REPO / "demo" / "manifest.json") if r.spec and r.spec.name == "Saro roundabout"]
    assert row.spec is not None
    row.spec.annotators = [annotator.username]
    scene = scene_import(spec=row.spec, created_by=admin)
    call_command("process_scenes", str(scene.id), "--kind=probe", "--kind=render", "--kind=georeference")
    return scene


class Drawer:
    """Marks posted as the workspace posts them, placed in shares of the image's width and height."""

    def __init__(self, client: Any, scene: Scene):
        self.client, self.scene = client, scene
        self.image = scene.satellite_images.get()

    def xy(self, fx: float, fy: float) -> list[float]:
        return [round(fx * self.image.width, 1), round(fy * self.image.height, 1)]

    def post(self, kind: str, geometry: dict, label: str, t0: float, t1: float | None = None, **extra: Any) -> int:
        body = {"satellite_image": self.image.id, "kind": kind, "geometry": geometry, "label": label,
                "time_start": t0, "time_end": t1, **extra}  # fmt: skip
        response = self.client.post(f"/api/scenes/{self.scene.id}/marks/", body, format="json")
        assert response.status_code == 201, response.content
        return int(response.json()["id"])

    def box(self, x0: float, y0: float, x1: float, y1: float, label: str, t0: float, t1: float | None = None,
            **facts: Any) -> int:  # fmt: skip
        ring = [self.xy(x0, y0), self.xy(x1, y0), self.xy(x1, y1), self.xy(x0, y1)]
        return self.post("polygon", {"type": "Polygon", "coordinates": [ring]}, label, t0, t1, facts=facts)

    def point(self, fx: float, fy: float, label: str, t0: float, **facts: Any) -> int:
        return self.post("point", {"type": "Point", "coordinates": self.xy(fx, fy)}, label, t0, facts=facts)

    def track(self, points: list[tuple[float, float]], times: list[float], label: str, **facts: Any) -> int:
        line = {"type": "LineString", "coordinates": [self.xy(*p) for p in points]}
        return self.post("polyline", line, label, times[0], times[-1], vertex_times=times, facts=facts)


def _marks(d: Drawer) -> dict[str, list[int]]:
    """The marks of each task's item, in the order its template takes them."""
    island = d.box(0.44, 0.44, 0.56, 0.56, "roundabout", 0.0, 4.0, visible=True, first_seen_s=0.5)
    parking = d.box(0.05, 0.05, 0.25, 0.20, "parking lot", 3.0, None, count_class="car", visible=True)
    cars = [d.point(0.10, 0.10, "car", 3.0), d.point(0.18, 0.15, "car", 3.0), d.point(0.6, 0.9, "car", 3.0)]
    # the lettered tasks' keys lie on the roads, the orthophoto's data (23% of it), as their wrong options do
    lane = d.box(0.47, 0.44, 0.53, 0.50, "lane", 0.0, 4.0)
    event = d.point(0.70, 0.45, "car", 4.0, event="the white car stops at the give-way line")
    track = d.track([(0.11, 0.36), (0.29, 0.40), (0.45, 0.535), (0.62, 0.45)], [1.0, 2.0, 3.0, 4.0], "van",
                    future_action="straight")  # fmt: skip
    other = d.track([(0.92, 0.47), (0.75, 0.43)], [5.0, 7.0], "bus")
    kerb = d.box(0.80, 0.80, 0.95, 0.95, "crosswalk", 0.0, None, visible=False)
    east = d.box(0.72, 0.45, 0.82, 0.55, "building", 3.0, 8.0, visible=True, first_seen_s=3.0)
    west = d.box(0.15, 0.45, 0.25, 0.55, "tree", 6.0, 9.0, visible=True, first_seen_s=6.0,
                 occlusion=[{"other": east, "relation": "none"}])  # fmt: skip
    lamp = d.point(0.5, 0.2, "pedestrian", 2.0, at_s=2.0)
    return {
        T.TARGET_VISIBILITY: [island],
        T.SCENE_ASSOCIATION: [lane],
        T.ZONE_COUNTING: [parking, *cars],
        T.EVENT_GEOLOCALIZATION: [event],
        T.TRAJECTORY_MATCHING: [track, other],
        T.TEMPORAL_GROUNDING: [east],
        T.RELATIVE_DISTANCE: [track, kerb],
        T.RELATIVE_DIRECTION: [lamp, island],
        T.OCCLUSION_ATTRIBUTION: [west, east],
        T.SPATIOTEMPORAL_ORDERING: [east, west, island],
        T.REGION_INTERACTION: [track, island],
        T.REGION_REACHABILITY: [track, east],
    }


def test_items_of_all_twelve_tasks_from_marks_on_the_demo_scene(
    saro: Scene, annotator: Any, api: Any, celery_eager: None, django_capture_on_commit_callbacks: Any
) -> None:
    client = api(annotator)
    drawer = Drawer(client, saro)
    marks = _marks(drawer)
    # when the annotator checks and compiles each task's marks (model views render on commit)
    made = {}
    with django_capture_on_commit_callbacks(execute=True):
        for task, ids in marks.items():
            check = {
                t["task"]: t for t in client.post("/api/items/check/", {"mark_ids": ids}, format="json").json()["tasks"]
            }
            assert check[task]["ok"], (task, check[task]["missing"])
            response = client.post("/api/items/", {"task": task, "mark_ids": ids, "active_seconds": 30}, format="json")
            assert response.status_code == 201, (task, response.content)
            made[task] = response.json()["id"]
    # then each item has its task's format and keys from the marks, in the image's true north
    items = {it["task"]: it for it in client.get(f"/api/items/?scene={saro.id}").json()["results"]}
    assert set(items) == set(T.values)
    for task, item in items.items():
        assert len(item["options"]) == OPTIONS[task], task
        assert item["phrasing"]["text"] and item["active_seconds"] == 30
    assert items[T.ZONE_COUNTING]["answer"] == "2"
    assert items[T.TEMPORAL_GROUNDING]["answer"] == "3"
    assert items[T.SPATIOTEMPORAL_ORDERING]["answer"] == "the roundabout, then the building, then the tree"
    assert items[T.RELATIVE_DIRECTION]["answer"] == "north" and "true north" in items[T.RELATIVE_DIRECTION]["question"]
    assert items[T.REGION_INTERACTION]["answer"] == "it goes into the roundabout"
    # and every model view is rendered: the whole image (for lettered candidates, their part of the
    # orthophoto's data), the options drawn, the segments cut
    image = saro.satellite_images.get()
    for task, item in items.items():
        view = item["model_view"]
        assert view["state"] == "succeeded", (task, view["error"])
        assert client.get(view["image_url"]).status_code == 200
        row = ModelView.objects.get(item_id=item["id"])
        lettered = task in (T.SCENE_ASSOCIATION, T.EVENT_GEOLOCALIZATION, T.TRAJECTORY_MATCHING)
        size: tuple[int, int] = (image.width, image.height)
        if lettered:
            image.refresh_from_db()
            geometries = [c["geometry"] for c in row.item.provenance["candidates"]]
            x0, y0, x1, y1 = candidates_box(
                geometries, image.width, image.height, within=shape(image.valid_area).bounds
            )
            size = (x1 - x0, y1 - y0)
            assert size[0] < image.width and size[1] < image.height
        with default_storage.open(row.image.name) as fh, Image.open(fh) as im:
            assert im.size == size, task
        assert [o["option"] for o in view["options"]] == (item["options"] if lettered else [])
    # and every option, the key included, lies on the orthophoto's data, traced when first needed (the
    # scene was processed without the valid-area job) and stored
    image.refresh_from_db()
    data = shape(image.valid_area).buffer(10)  # the stated tolerance (6.5 px here) and the record's rounding
    for task in (T.SCENE_ASSOCIATION, T.EVENT_GEOLOCALIZATION, T.TRAJECTORY_MATCHING):
        provenance = Item.objects.get(id=items[task]["id"]).provenance
        assert provenance["distractors"]["valid_area_share"] == pytest.approx(0.23, abs=0.01)
        options = [c["geometry"] for c in provenance["candidates"]]
        assert len(options) == 4 and all(data.covers(candidate_shape(g)) for g in options), (task, options)
    assert items[T.SCENE_ASSOCIATION]["model_view"]["segment_s"] == [0.0, 4.0]
    assert items[T.TRAJECTORY_MATCHING]["model_view"]["segment_s"] == [1.0, 4.0]
    assert items[T.TARGET_VISIBILITY]["model_view"]["segment_s"] is None

    # when everything else the marks allow is compiled, and one item is compiled twice
    with django_capture_on_commit_callbacks(execute=True):
        batch = client.post(f"/api/scenes/{saro.id}/items/compile-all/", {"seed": 1}, format="json").json()
        again = {"task": T.TARGET_VISIBILITY, "mark_ids": marks[T.TARGET_VISIBILITY], "seed": 99}
        assert client.post("/api/items/", again, format="json").status_code == 201
    assert batch["items"] and not any(it["task"] == T.TARGET_VISIBILITY and it["mark_ids"] == marks[T.TARGET_VISIBILITY]
                                      for it in batch["items"])  # fmt: skip
    # then the audit reports each task with the figures of that set
    everything = Item.objects.filter(scene=saro)
    out = StringIO()
    call_command("audit_items", "--json", stdout=out)
    reports = {r["task"]: r for r in map(json.loads, out.getvalue().splitlines())}
    assert set(reports) == set(T.values)
    counts = Counter(everything.values_list("task", flat=True))
    for task, report in reports.items():
        assert report["items"] == counts[task]
        assert report["n_options"] == (OPTIONS[task] or None)
        assert sum(n for _, n in report["phrasings"]) == counts[task]
        assert report["blind"] is None  # one scene: nothing to train on apart from the tested scene
        if OPTIONS[task]:
            keys = Counter(it.options.index(it.answer) for it in everything.filter(task=task))
            assert report["positions"]["p_mode"] == pytest.approx(max(keys.values()) / counts[task], abs=1e-3)
            assert 0 <= report["positions"]["entropy"] <= 1
    assert (reports[T.TARGET_VISIBILITY]["duplicate_groups"], reports[T.TARGET_VISIBILITY]["duplicate_items"]) == (1, 2)
    assert sum(r["duplicate_items"] for r in reports.values()) == 2
    # and the effort page shows the half minute per item each task took
    client.force_authenticate(user=None)
