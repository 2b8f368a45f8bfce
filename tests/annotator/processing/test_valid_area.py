"""The valid-area job (annotator.processing.steps.image.valid_area_step and its service): real
images traced and stored on import, a damaged file failing with its name, and images imported
before the job existed getting it when they are processed again."""

from __future__ import annotations

from pathlib import Path

import pytest
import shapely
from django.core.management import call_command
from shapely.geometry import Point, box, shape

from annotator.intake.services import SceneSpec, scene_import
from annotator.models import MediaJob, SatelliteImage, Scene
from annotator.processing.graph import FIRST, STEPS
from annotator.processing.jobs import media_job_run
from annotator.processing.valid_area import valid_area_geojson
from media_tools.imagery.valid_area import MAX_VERTICES
from tests.factories import tiny_video

pytestmark = pytest.mark.django_db


def _scene(admin, path: Path) -> Scene:  # type: ignore[no-untyped-def]
    return scene_import(spec=SceneSpec(name=path.stem, video=tiny_video(), satellite=[path]), created_by=admin)


def _run(image: SatelliteImage) -> MediaJob:
    job = image.jobs.get(kind="valid_area")
    media_job_run(job_id=job.id, step=STEPS["valid_area"])
    job.refresh_from_db()
    return job


def test_the_job_is_an_image_job_that_waits_for_nothing() -> None:
    assert "valid_area" in FIRST


def test_an_orthophoto_with_transparent_borders_gets_its_area_stored(testdata: Path, admin) -> None:  # type: ignore[no-untyped-def]
    # given the WebODM orthophoto (transparent outside the mosaic), just imported
    image = _scene(admin, testdata / "satellite" / "webodm_drone_orthophoto_0p5m.tif").satellite_images.get()
    assert image.valid_area is None
    # when its valid-area job runs
    job = _run(image)
    # then it succeeded, says how much of the image has data, and stored a short outline
    assert (job.state, job.detail) == ("succeeded", "data on 98% of the image; black or transparent borders left out")
    image.refresh_from_db()
    area = shape(image.valid_area)
    assert image.valid_area["type"] == "Polygon" and shapely.get_num_coordinates(area) <= MAX_VERTICES
    assert area.area / (image.width * image.height) == pytest.approx(0.977, abs=0.01)
    assert area.contains(Point(106, 106)) and not area.contains(Point(1, 1))
    # and vertices are stored to a tenth of a pixel, as plain JSON lists
    ring = image.valid_area["coordinates"][0]
    assert isinstance(ring[0], list) and all(round(v, 1) == v for p in ring for v in p)


def test_an_image_with_data_everywhere_stores_its_rectangle(testdata: Path, admin) -> None:  # type: ignore[no-untyped-def]
    image = _scene(admin, testdata / "satellite" / "opencv_aero1_oblique_aerial.jpg").satellite_images.get()
    job = _run(image)
    assert (job.state, job.detail) == ("succeeded", "data everywhere: no black or transparent borders")
    image.refresh_from_db()
    assert shape(image.valid_area).equals(box(0, 0, 640, 480))


def test_a_damaged_file_fails_the_job_with_its_name(testdata: Path, admin) -> None:  # type: ignore[no-untyped-def]
    image = _scene(admin, testdata / "satellite" / "opencv_aero1_oblique_aerial.jpg").satellite_images.get()
    cut = (testdata / "satellite" / "opencv_aero1_oblique_aerial.jpg").read_bytes()[:20000]
    Path(image.file.path).write_bytes(cut)
    job = _run(image)
    assert job.state == "failed" and job.error.startswith(Path(image.file.name).name + ": ")
    image.refresh_from_db()
    assert image.valid_area is None


def test_images_imported_before_the_job_get_it_when_processed_again(testdata: Path, admin) -> None:  # type: ignore[no-untyped-def]
    # given an image imported before the job existed: it has no such job and no area
    scene = _scene(admin, testdata / "satellite" / "landsat7_bahamas_RGB.byte.tif")
    image = scene.satellite_images.get()
    image.jobs.filter(kind="valid_area").delete()
    # when its scene is processed again
    call_command("process_scenes", str(scene.id), "--kind=valid_area")
    # then the job was created and ran: the nodata border around the tilted scene is left out
    assert image.jobs.get(kind="valid_area").state == "succeeded"
    image.refresh_from_db()
    assert shape(image.valid_area).area / (image.width * image.height) == pytest.approx(0.675, abs=0.01)


def test_an_empty_area_is_stored_as_an_empty_multipolygon() -> None:
    assert valid_area_geojson(shapely.MultiPolygon()) == {"type": "MultiPolygon", "coordinates": []}
    assert shape(valid_area_geojson(box(0, 0, 2, 1))).equals(box(0, 0, 2, 1))
