"""`manage.py import_scenes MANIFEST`: every good row imported, every bad row reported, exit non-zero."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotator.models import SatelliteImage, Scene, Video
from tests.factories import copy_to, png_bytes, tiny_video

pytestmark = pytest.mark.django_db


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder with two clips and two map images, as a manifest would sit next to them."""
    copy_to(tiny_video(), tmp_path / "clips" / "one.mp4")
    copy_to(tiny_video(), tmp_path / "clips" / "two.mp4")
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "a.png").write_bytes(png_bytes(120, 80, 1))
    (tmp_path / "maps" / "b.png").write_bytes(png_bytes(120, 80, 2))
    return tmp_path


def _run(manifest: Path, *args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("import_scenes", str(manifest), *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_json_manifest_imports_every_scene(folder: Path, annotator, admin) -> None:
    # given a JSON manifest of two scenes
    manifest = folder / "scenes.json"
    manifest.write_text(
        json.dumps(
            {
                "scenes": [
                    {"name": "One", "video": "clips/one.mp4", "satellite": ["maps/a.png"], "annotators": ["ann"]},
                    {"name": "Two", "video": "clips/two.mp4", "satellite": ["maps/b.png"]},
                ]
            }
        )
    )

    # when imported as the admin
    out, err = _run(manifest, "--as-user", admin.username)

    # then both scenes exist with their files, recorded as the admin's
    assert list(Scene.objects.values_list("name", flat=True)) == ["One", "Two"]
    assert set(Scene.objects.values_list("created_by", flat=True)) == {admin.id}
    assert sorted(Video.objects.values_list("original_name", flat=True)) == ["one.mp4", "two.mp4"]
    assert sorted(SatelliteImage.objects.values_list("original_name", flat=True)) == ["a.png", "b.png"]
    assert Scene.objects.get(name="One").assignments.get().annotator == annotator
    assert out.splitlines()[-1] == "2 scene(s) created, 0 row(s) failed"
    assert err == ""


def test_csv_row_with_a_wrong_path_fails_alone(folder: Path, media_files) -> None:
    # given a CSV whose second row names a video that does not exist
    manifest = folder / "scenes.csv"
    manifest.write_text(
        "name,video,satellite\n"
        "One,clips/one.mp4,maps/a.png\n"
        "Lost,clips/lost.mp4,maps/b.png\n"
        "Two,clips/two.mp4,maps/b.png\n"
    )

    # when imported / then the command exits non-zero
    err = io.StringIO()
    with pytest.raises(CommandError, match=r"^1 row\(s\) could not be imported; nothing was created for them$"):
        call_command("import_scenes", str(manifest), stdout=io.StringIO(), stderr=err)

    # and the good rows are imported while the bad row created nothing (its map is only Two's)
    assert list(Scene.objects.values_list("name", flat=True)) == ["One", "Two"]
    assert Video.objects.count() == 2
    assert sorted(f.split("/")[0] for f in media_files()) == ["satellite", "satellite", "videos", "videos"]
    # and the error names the row, the scene, the field and the file
    assert "row 2 (Lost): video: lost.mp4: file not found" in err.getvalue()


def test_unparseable_row_is_reported_with_its_number(folder: Path) -> None:
    manifest = folder / "scenes.json"
    manifest.write_text(
        json.dumps([{"name": "One", "video": "clips/one.mp4", "satellite": "maps/a.png"}, {"name": "No video"}])
    )
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_scenes", str(manifest), stdout=io.StringIO(), stderr=err)
    assert "row 2: video: missing" in err.getvalue()
    assert list(Scene.objects.values_list("name", flat=True)) == ["One"]


def test_skip_existing_makes_a_rerun_a_no_op(folder: Path) -> None:
    # given a manifest that was imported once
    manifest = folder / "scenes.json"
    manifest.write_text(json.dumps([{"name": "One", "video": "clips/one.mp4", "satellite": "maps/a.png"}]))
    _run(manifest)

    # when run again with --skip-existing / then nothing new and no failure
    out, _ = _run(manifest, "--skip-existing")
    assert Scene.objects.count() == 1
    assert out.splitlines()[-1] == "0 scene(s) created, 0 row(s) failed"

    # and without it, the duplicate name is a failed row
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_scenes", str(manifest), stdout=io.StringIO(), stderr=err)
    assert "row 1 (One): name: a scene named 'One' already exists" in err.getvalue()


def test_unreadable_manifest_is_a_command_error(tmp_path: Path) -> None:
    manifest = tmp_path / "m.json"
    manifest.write_text("{oops")
    with pytest.raises(CommandError, match=r"m\.json: cannot read"):
        _run(manifest)
    with pytest.raises(CommandError, match="manifest not found"):
        _run(tmp_path / "absent.csv")


def test_demo_manifest_imports(settings) -> None:
    # given the repository's demo manifest (real clips in demo/, used by `make run`)
    from tests.factories import AnnotatorFactory

    AnnotatorFactory(username="annotator")
    manifest = Path(settings.BASE_DIR) / "demo" / "manifest.json"

    # when imported
    out, _ = _run(manifest)

    # then the three demo scenes exist: Saro with an orthophoto warped from its first frame by its six
    # control points (larger than the frame: north-up bounding box), Kraklanda with its frame as is,
    # Brighton Beach with an orthomosaic of its own and its flight log read with the named columns
    assert out.splitlines()[-1] == "3 scene(s) created, 0 row(s) failed"
    brighton = Scene.objects.get(name="Brighton Beach")
    assert brighton.telemetry.columns == {"height_m": "rel_alt_m", "heading_deg": "gimbal_yaw_deg"}
    assert (brighton.source_license, brighton.satellite_images.get().width) == ("BSD-2-Clause", 1865)
    saro, kraklanda = (
        Scene.objects.get(name=n).satellite_images.get() for n in ("Saro roundabout", "Kraklanda highway")
    )
    assert saro.original_name.endswith("_orthophoto.tif") and len(saro.gcps) == 6
    assert saro.width > 1920 and saro.height > 1080 and saro.bands == 4
    assert (kraklanda.width, kraklanda.height, kraklanda.gcps) == (1920, 1080, None)
