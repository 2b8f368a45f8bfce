"""The demo scenes, imported from the demo manifest and processed as `make run` does: every keyframe
ends placed on the scene's map with its source stated."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from django.core.management import call_command

from annotator.intake.manifest import read_manifest
from annotator.intake.services import scene_import
from annotator.models import KeyframePlacement, MediaJob, Scene
from annotator.processing.selectors import placement_notes

pytestmark = pytest.mark.django_db

REPO = Path(__file__).resolve().parents[4]


def _demo(name: str, admin) -> Scene:  # type: ignore[no-untyped-def]
    [row] = [r for r in read_manifest(REPO / "demo" / "manifest.json") if r.spec and r.spec.name == name]
    assert row.spec is not None
    row.spec.annotators = []
    scene = scene_import(spec=row.spec, created_by=admin)
    call_command("process_scenes", str(scene.id))
    return scene


def _placed(scene: Scene) -> dict[int, KeyframePlacement]:
    job = MediaJob.objects.get(scene=scene, kind=MediaJob.Kind.PLACEMENTS)
    assert job.state == "succeeded", (job.state, job.error, job.detail)
    rows = KeyframePlacement.objects.filter(keyframe__video=scene.video).select_related("keyframe")
    placed = {r.keyframe.index: r for r in rows}
    # every keyframe, each with a stated source and a confidence the workspace can use
    assert sorted(placed) == sorted(scene.video.keyframes.values_list("index", flat=True))
    assert all(r.source in KeyframePlacement.Source.values and 0 <= r.confidence <= 1 for r in placed.values())
    return placed


def test_saro_frame_0_by_its_control_points_and_the_clip_by_matching_or_chaining(admin) -> None:
    scene = _demo("Saro roundabout", admin)
    placed = _placed(scene)
    image = scene.satellite_images.get()
    assert placed[0].source == "control_points"
    assert placed[0].uncertainty_m == pytest.approx(image.georef_rms_m, abs=0.01)
    assert {r.source for i, r in placed.items() if i} <= {"matching", "chaining"}
    # the orthophoto is georeferenced: every error is also in metres, a few at most on a hovering drone
    assert all(r.uncertainty_m is not None and r.uncertainty_m < 5 for r in placed.values())
    # and the drone hovers: the footprints stay near frame 0's (a few metres at 0.11 m/px)
    centre0 = np.mean(placed[0].quad, axis=0)
    assert all(np.linalg.norm(np.mean(r.quad, axis=0) - centre0) < 60 for r in placed.values())


def test_kraklanda_frame_0_is_its_own_map_and_the_rest_follow(admin) -> None:
    scene = _demo("Kraklanda highway", admin)
    placed = _placed(scene)
    assert placed[0].source == "same_frame" and placed[0].confidence == 1.0
    assert {r.source for i, r in placed.items() if i} <= {"matching", "chaining"}
    # no georeference: errors in pixels only
    assert all(r.uncertainty_m is None for r in placed.values())


def test_brighton_every_photo_placed_by_matching_or_its_telemetry(admin) -> None:
    scene = _demo("Brighton Beach", admin)
    placed = _placed(scene)
    assert {r.source for r in placed.values()} <= {"matching", "chaining", "telemetry"}
    assert all(r.uncertainty_m is not None for r in placed.values())
    # the footprint moves with the drone along its flight lines: frames 0 and 5 are ~60 m apart
    gsd = 0.086
    gap = np.linalg.norm(np.mean(placed[5].quad, axis=0) - np.mean(placed[0].quad, axis=0)) * gsd
    assert gap > 40
    # the six photos of the return line (DJI_0024-0029, 6-11 s) carry a gimbal yaw 180° from where the
    # picture's up points: matching outranks their telemetry, and both the rows and the page say so
    checks = {i: r.details.get("telemetry_check") for i, r in placed.items() if r.source != "telemetry"}
    reversed_ = sorted(i for i, c in checks.items() if c and not c["agrees"])
    assert reversed_ == [6, 7, 8, 9, 10, 11], {i: c for i, c in checks.items() if c and not c["agrees"]}
    assert all(checks[i]["heading_deg"] > 170 for i in reversed_)
    notes = placement_notes(scene=scene).images
    assert len(notes) == 1 and "on 6 of 18 keyframes (at 6 s, 7 s, 8 s, 9 s, 10 s, 11 s)" in notes[0], notes
    assert "a yaw recorded reversed?" in notes[0]
