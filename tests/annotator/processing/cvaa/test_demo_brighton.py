"""The demo's Brighton Beach scene: its flight log's height above take-off gives every keyframe a
telemetry footprint on the orthomosaic, one that moves with the drone and lies where its GPS says."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from django.core.management import call_command

from annotator.intake.manifest import read_manifest
from annotator.intake.services import scene_import
from annotator.processing.cvaa.footprints import scene_footprints
from media_tools.geo import GeoReference

REPO = Path(__file__).resolve().parents[4]


def test_every_brighton_keyframe_has_a_telemetry_footprint_over_its_gps_position(admin) -> None:
    # given the demo manifest's Brighton row, imported and processed
    [row] = [r for r in read_manifest(REPO / "demo" / "manifest.json") if r.spec and r.spec.name == "Brighton Beach"]
    assert row.spec is not None
    row.spec.annotators = []
    scene = scene_import(spec=row.spec, created_by=admin)
    call_command("process_scenes", str(scene.id))
    scene.refresh_from_db()

    # when its footprints are read
    image = scene.satellite_images.get()
    keyframes = list(scene.video.keyframes.order_by("index"))
    footprints = scene_footprints(scene=scene, image=image, keyframes=keyframes)

    # then all 18 keyframes have one, from telemetry
    assert len(keyframes) == 18 and sorted(footprints) == [k.index for k in keyframes]
    assert {f.source for f in footprints.values()} == {"telemetry"}
    # each centred on the drone's own position on the map (a nadir camera looks straight down), to
    # within a metre or two (the map's own georeference is good to about 1.4 m)
    ref = GeoReference.from_dict(image.georef)
    samples = {round(s.time_s): s for s in scene.telemetry.samples.all()}
    centres = {}
    for k in keyframes:
        centre = np.mean(np.asarray(footprints[k.index].quad, float), axis=0)
        at = samples[round(k.time_s)]
        gps = np.asarray(ref.lonlat_to_pixel(at.lon, at.lat))
        assert np.linalg.norm(centre - gps) * 0.086 < 2.0, k.index
        centres[k.index] = centre
    # and it moves with the drone: frames 0 and 5 are about 60 m apart along the first flight line
    assert np.linalg.norm(centres[5] - centres[0]) * 0.086 > 40
