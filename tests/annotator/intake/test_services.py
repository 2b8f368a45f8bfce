"""annotator.intake.services.scene_import: rows + files + jobs, all or nothing."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError

from annotator.intake.services import SceneSpec, scene_import
from annotator.models import Assignment, MediaJob, SatelliteImage, Scene, Video
from annotator.storage import sha256_file
from tests.factories import ReviewerFactory, SceneFactory, png_bytes, tiny_video

pytestmark = pytest.mark.django_db

MODELS = (Scene, Video, SatelliteImage, MediaJob, Assignment)
CORNERS = {
    "tl": [57.48434, 12.01107],
    "tr": [57.48333, 12.00869],
    "br": [57.48435, 12.00738],
    "bl": [57.48537, 12.00976],
}


def _satellite(tmp_path: Path, name: str = "map.png", seed: int = 1, size: tuple[int, int] = (320, 240)) -> Path:
    path = tmp_path / name
    path.write_bytes(png_bytes(*size, seed))
    return path


def _counts() -> tuple[int, ...]:
    return tuple(model.objects.count() for model in MODELS)


def test_import_creates_rows_files_and_jobs(
    tmp_path, annotator, admin, media_root, django_capture_on_commit_callbacks
) -> None:
    # given a video, a satellite image with corners, and an annotator to assign
    sat = _satellite(tmp_path)
    spec = SceneSpec(
        name="  Coast  ",
        video=tiny_video(),
        satellite=[sat],
        corners=CORNERS,
        description="bluffs",
        annotators=["ann"],
        video_name="coast.mp4",
    )

    # when it is imported
    with django_capture_on_commit_callbacks() as callbacks:
        scene = scene_import(spec=spec, created_by=admin)

    # then the scene row is there, named without the padding, made by the admin
    scene.refresh_from_db()
    assert (scene.name, scene.description, scene.created_by) == ("Coast", "bluffs", admin)
    # and the video row describes the stored copy (probing fills the rest later)
    video = scene.video
    assert (video.original_name, video.size_bytes) == ("coast.mp4", tiny_video().stat().st_size)
    assert video.sha256 == sha256_file(tiny_video())
    assert video.duration_s is None
    assert (media_root / video.file.name).read_bytes() == tiny_video().read_bytes()
    # and the satellite image row has the header's size and the clean corners
    [image] = scene.satellite_images.all()
    assert (image.original_name, image.width, image.height) == ("map.png", 320, 240)
    assert image.corners == CORNERS
    assert image.sha256 == hashlib.sha256(sat.read_bytes()).hexdigest()
    assert (media_root / image.file.name).read_bytes() == sat.read_bytes()
    # and exactly these two files were stored
    assert {video.file.name, image.file.name} == {"videos/coast.mp4", "satellite/map.png"}
    # and the video's jobs and the image's jobs wait; only those that need no other job are
    # enqueued (after commit): the probe, the image rendering, the georeference and the valid area
    assert [(j.kind, j.state) for j in scene.jobs.order_by("id")] == [
        (kind, "pending") for kind in ("probe", "keyframes", "filmstrip", "proxy", "telemetry", "cvaa", "placements")
    ]
    assert [j.kind for j in image.jobs.order_by("id")] == ["render", "georeference", "tiles", "valid_area"]
    assert len(callbacks) == 4
    # and the annotator is assigned by the admin
    assert [(a.annotator.username, a.assigned_by) for a in scene.assignments.all()] == [("ann", admin)]


def test_keyframe_stands_in_for_a_missing_satellite_image(testdata: Path, media_root: Path) -> None:
    # given the Kraklanda clip and no satellite image
    video = testdata / "videos" / "kraklanda_highway_topdown_1080p_3fps.mp4"
    spec = SceneSpec(name="Kraklanda", video=video, satellite_from_keyframe_s=1)

    # when imported
    scene = scene_import(spec=spec, created_by=None)

    # then the frame at 1 s is the map image, full size, and says it is not a satellite image
    [image] = scene.satellite_images.all()
    assert (image.width, image.height) == (1920, 1080)
    assert image.original_name == "kraklanda_highway_topdown_1080p_3fps_keyframe.png"
    assert image.provenance_note.startswith("Not a satellite image: the video's own frame at 1 s")
    assert (media_root / image.file.name).stat().st_size > 10_000


def test_same_satellite_image_serves_two_scenes(tmp_path: Path, media_files) -> None:
    # given one image file used by two scenes
    sat = _satellite(tmp_path)
    first = scene_import(spec=SceneSpec(name="A", video=tiny_video(), satellite=[sat]), created_by=None)

    # when the second scene is imported
    second = scene_import(spec=SceneSpec(name="B", video=tiny_video(), satellite=[sat]), created_by=None)

    # then there is one image row and one stored image file, shared
    assert SatelliteImage.objects.count() == 1
    assert list(first.satellite_images.all()) == list(second.satellite_images.all())
    assert len([f for f in media_files() if f.startswith("satellite/")]) == 1
    assert len([f for f in media_files() if f.startswith("videos/")]) == 2


def _refused(spec: SceneSpec, media_files) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    """Import `spec`, expect a ValidationError, and check nothing at all was left behind."""
    rows, files = _counts(), media_files()
    with pytest.raises(ValidationError) as err:
        scene_import(spec=spec, created_by=None)
    assert _counts() == rows, "rows were left behind"
    assert media_files() == files, "files were left behind"
    return err.value.message_dict


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("text", "notes.mp4: not a readable video"),
        ("truncated", "truncated.mp4: not a readable video"),
        ("empty", "empty.mp4: the file is empty (0 bytes)"),
        ("missing", "missing.mp4: file not found"),
        ("audio_only", "tone.mp4: no video stream found"),
        ("one_pixel", "dot.mp4: the picture is 1x1 px, too small to annotate"),
    ],
)
def test_bad_video_is_a_video_field_error(tmp_path, bad_media, media_files, kind: str, message: str) -> None:
    # given a satellite image and a broken video
    spec = SceneSpec(name="Bad", video=bad_media[kind], satellite=[_satellite(tmp_path)])

    # then the error is on `video`, names the file, and nothing is created
    errors = _refused(spec, media_files)
    assert list(errors) == ["video"]
    assert errors["video"][0].startswith(message)


def test_error_names_the_uploaded_file_not_the_temp_file(tmp_path, bad_media, media_files) -> None:
    spec = SceneSpec(name="Bad", video=bad_media["text"], satellite=[_satellite(tmp_path)], video_name="flight 7.mp4")
    assert _refused(spec, media_files)["video"][0].startswith("flight 7.mp4: not a readable video")


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("text_image", "notes.png: not a readable image"),
        ("huge_image", "huge.png: the image is too large to open safely"),
        ("empty", "empty.mp4: the file is empty"),
        ("wrong_extension", "photo.jpg: the file is a PNG image but its name ends in .jpg"),
        ("broken_georef", "ortho.tif: the geotransform in its GeoTIFF tags is broken"),
    ],
)
def test_bad_satellite_is_a_satellite_field_error(bad_media, media_files, kind: str, message: str) -> None:
    spec = SceneSpec(name="Bad", video=tiny_video(), satellite=[bad_media[kind]])
    errors = _refused(spec, media_files)
    assert list(errors) == ["satellite"]
    assert errors["satellite"][0].startswith(message)


def test_satellite_names_are_shown_as_uploaded(bad_media, media_files) -> None:
    spec = SceneSpec(name="Bad", video=tiny_video(), satellite=[bad_media["text_image"]], satellite_names=["ortho.tif"])
    assert _refused(spec, media_files)["satellite"][0].startswith("ortho.tif: not a readable image")


def test_duplicate_name_is_a_name_error(tmp_path, media_files) -> None:
    # given an existing scene "Coast"
    SceneFactory(name="Coast")

    # then a second "Coast" (even padded) is refused on `name`
    errors = _refused(SceneSpec(name=" Coast ", video=tiny_video(), satellite=[_satellite(tmp_path)]), media_files)
    assert errors == {"name": ["a scene named 'Coast' already exists"]}


def test_every_problem_is_reported_at_once(bad_media, media_files) -> None:
    # given an empty name, a broken video, no satellite image and an unknown annotator
    spec = SceneSpec(name=" ", video=bad_media["text"], annotators=["nobody"])

    # then each field says what is wrong
    errors = _refused(spec, media_files)
    assert set(errors) == {"name", "video", "satellite", "annotators"}
    assert errors["name"] == ["a scene needs a name"]
    assert errors["annotators"] == ["no annotator named nobody"]
    assert "give at least one satellite image" in errors["satellite"][0]


@pytest.mark.parametrize(
    ("corners", "message"),
    [
        ({"tl": [1, 2]}, "give all four corners"),
        ({**CORNERS, "tl": [95, 12]}, "corner tl: (95.0, 12.0) is not a WGS84 lat/lon"),
        ({**CORNERS, "br": "north"}, "corner br: expected [lat, lon]"),
    ],
)
def test_bad_corners_are_a_corners_error(tmp_path, media_files, corners: dict, message: str) -> None:
    spec = SceneSpec(name="C", video=tiny_video(), satellite=[_satellite(tmp_path)], corners=corners)
    assert _refused(spec, media_files)["corners"][0].startswith(message)


def test_failure_after_files_were_stored_removes_them(tmp_path, media_files) -> None:
    # given a user who exists but is a reviewer, not an annotator: found only when assigning,
    # after the video and image files were already stored
    ReviewerFactory(username="rita")
    spec = SceneSpec(name="Late", video=tiny_video(), satellite=[_satellite(tmp_path)], annotators=["rita"])

    # then the import is refused and both files are deleted again
    errors = _refused(spec, media_files)
    assert "rita is not in the annotator role" in errors["annotator"][0]


def test_keyframe_time_after_the_last_frame_is_a_field_error(media_files) -> None:
    # given a 2 s clip whose last frame is at 1.9 s, and a request for the frame at 1.95 s
    spec = SceneSpec(name="Late frame", video=tiny_video(), satellite_from_keyframe_s=1.95, video_name="clip.mp4")

    # then a 400-style field error, not a crash, and nothing left behind
    errors = _refused(spec, media_files)
    assert errors == {"satellite_from_keyframe_s": ["clip.mp4: no frame at 1.95 s"]}


# ---- impossible georeference inputs are refused at upload, naming the field ------------------

GOOD_GCPS = [[0, 0, 57.48434, 12.01107], [320, 0, 57.48333, 12.00869], [320, 240, 57.48435, 12.00738]]


@pytest.mark.parametrize(
    ("inputs", "field", "says"),
    [
        ({"corners": {**CORNERS, "tl": [True, 12.0]}}, "corners", "corner tl: expected [lat, lon]"),
        ({"corners": {k: [57.48, 12.0] for k in CORNERS}}, "corners", ""),  # all four at one place
        ({"gcps": [[0, 0, 57.1, 12.1], [10, 10, 57.2, 12.2], [20, 20, 57.3, 12.3]]}, "gcps", ""),  # collinear
        ({"gcps": [*GOOD_GCPS, [0, 0, 57.5, 12.02]]}, "gcps", "control points 1 and 4 have the same pixel position"),
        ({"gcps": [[False, 0, 57.1, 12.1], *GOOD_GCPS[1:]]}, "gcps", "control point 1: expected [x, y, lat, lon]"),
        ({"world": "0\n0\n0\n0\n500000\n6300000\n", "world_file_crs": "EPSG:32633"}, "world_file", "zero"),
        ({"world": "1e12\n0\n0\n-1e12\n500000\n6300000\n", "world_file_crs": "EPSG:32633"}, "world_file", ""),
        ({"world": "0.1\n0\n0\n-0.1\n500000\n6300000\n", "world_file_crs": "EPSG:999999"}, "world_file", "not known"),
    ],
)
def test_impossible_georeference_inputs_are_refused_at_upload(
    tmp_path: Path, media_files, inputs: dict, field: str, says: str
) -> None:
    sat = _satellite(tmp_path)
    world = None
    if "world" in inputs:
        world = tmp_path / "map.pgw"
        world.write_text(inputs.pop("world"))
    spec = SceneSpec(name="G", video=tiny_video(), satellite=[sat], world_file=world, **inputs)

    errors = _refused(spec, media_files)

    assert list(errors) == [field]
    assert says in errors[field][0]


def test_good_control_points_still_import(tmp_path: Path) -> None:
    scene = scene_import(
        spec=SceneSpec(name="G", video=tiny_video(), satellite=[_satellite(tmp_path)], gcps=GOOD_GCPS), created_by=None
    )
    assert scene.satellite_images.get().gcps == [[float(v) for v in p] for p in GOOD_GCPS]


def test_an_image_already_stored_keeps_its_georeference_and_new_inputs_are_refused(tmp_path: Path, media_files) -> None:
    # given an image stored with its corners for scene A
    sat = _satellite(tmp_path)
    scene_import(spec=SceneSpec(name="A", video=tiny_video(), satellite=[sat], corners=CORNERS), created_by=None)

    # when scene B brings the same image with other corners / then it is refused, nothing dropped silently
    moved = {k: [lat + 0.01, lon] for k, (lat, lon) in CORNERS.items()}
    errors = _refused(SceneSpec(name="B", video=tiny_video(), satellite=[sat], corners=moved), media_files)
    assert "already stored" in errors["corners"][0]

    # and the same image without inputs, or with the same corners, is reused as it is
    same = scene_import(spec=SceneSpec(name="C", video=tiny_video(), satellite=[sat], corners=CORNERS), created_by=None)
    bare = scene_import(spec=SceneSpec(name="D", video=tiny_video(), satellite=[sat]), created_by=None)
    assert same.satellite_images.get() == bare.satellite_images.get()
    assert SatelliteImage.objects.get().corners == CORNERS


def test_a_description_past_its_limit_is_refused(tmp_path: Path, media_files) -> None:
    spec = SceneSpec(name="T", video=tiny_video(), satellite=[_satellite(tmp_path)], description="x" * 5_000_000)
    assert _refused(spec, media_files)["description"] == ["5,000,000 characters; at most 10,000"]
