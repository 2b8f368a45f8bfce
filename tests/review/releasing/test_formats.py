"""Every release format, read back by the library its users read it with; reproducible bytes."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from datetime import datetime
from pathlib import Path

import pytest
from django.core.files.storage import default_storage
from shapely.geometry import shape

from annotator.models import Item, Mark
from media_tools.geo import georef_from_corners
from review.releasing.build import write_release
from review.releasing.formats import tsv
from review.releasing.services import release_build
from tests.factories import ItemFactory, MarkFactory, SatelliteImageFactory, SceneFactory

pytestmark = pytest.mark.django_db

# The factory's 200 x 100 px image over a small patch near Saro, as an import would store it.
GEOREF = georef_from_corners(
    {"tl": (57.4850, 12.0080), "tr": (57.4850, 12.0110), "br": (57.4838, 12.0110), "bl": (57.4838, 12.0080)},
    width=200,
    height=100,
).to_dict()
SECTORS = ["north", "east", "south", "west"]


@pytest.fixture
def release(annotator, admin):  # type: ignore[no-untyped-def]
    """Release 1.0: yes/no, multiple choice and count items on a georeferenced scene with an
    ellipse and a timed trajectory, plus an item on a second scene without georeference."""
    image = SatelliteImageFactory(georef=GEOREF)
    scene = SceneFactory(name="Saro roundabout", satellite_images=[image], annotators=[annotator])
    ellipse = MarkFactory(
        scene=scene,
        author=annotator,
        satellite_image=image,
        kind=Mark.Kind.ELLIPSE,
        geometry={"type": "Ellipse", "center": [100, 80], "radii": [20, 10], "rotation": 30},
    )
    track = MarkFactory(
        scene=scene,
        author=annotator,
        satellite_image=image,
        kind=Mark.Kind.POLYLINE,
        geometry={"type": "LineString", "coordinates": [[10, 10], [50, 20], [90, 60]]},
        time_start=0.0,
        time_end=1.5,
        vertex_times=[0.0, 0.5, 1.5],
        label="bus",
    )
    approved = {"state": Item.State.APPROVED, "author": annotator, "scene": scene}
    ItemFactory(marks=[ellipse], answer="yes", **approved)
    ItemFactory(
        marks=[track],
        task=Item.Task.RELATIVE_DIRECTION,
        options=SECTORS,
        answer="south",
        answer_format=Item.AnswerFormat.MULTIPLE_CHOICE,
        **approved,
    )
    ItemFactory(
        marks=[ellipse],
        task=Item.Task.ZONE_COUNTING,
        options=[],
        answer="3",
        answer_format=Item.AnswerFormat.NUMBER,
        **approved,
    )
    ItemFactory(state=Item.State.APPROVED, scene=SceneFactory(name="Kraklanda"), answer="no")
    return release_build(version="1.0", user=admin)


def _root(release) -> Path:  # type: ignore[no-untyped-def]
    return Path(default_storage.path(release.root))


def test_hugging_face_datasets_loads_the_release(release, tmp_path: Path, monkeypatch) -> None:
    from datasets import load_dataset

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    ds = load_dataset(str(_root(release)), cache_dir=str(tmp_path / "hf-cache"))
    total = sum(len(ds[s]) for s in ds if s != "tiny")
    assert total == 4
    rows = {r["id"]: r for s in ds if s != "tiny" for r in ds[s]}
    direction = next(r for r in rows.values() if r["task"] == "relative_direction")
    assert (direction["options"], direction["answer"]) == (SECTORS, "south")
    assert (_root(release) / direction["video"]).is_file()
    assert set(ds["tiny"]["id"]) <= set(rows)


def test_vlmevalkit_tsv_reads_back_with_pandas(release) -> None:
    import pandas as pd

    frame = pd.read_csv(_root(release) / "vlmevalkit" / "skymark-1.0.tsv", sep="\t", keep_default_na=False)
    assert list(frame.columns) == tsv.COLUMNS
    assert len(frame) == 4
    direction = frame[frame["category"] == "relative_direction"].iloc[0]
    assert [direction[c] for c in "ABCD"] == SECTORS
    assert direction["answer"] == "C"  # the letter of "south"
    assert direction["l2-category"] == "relation" and direction["question_type"] == "multiple_choice"
    count = frame[frame["category"] == "zone_counting"].iloc[0]
    assert str(count["answer"]) == "3" and count["A"] == ""


def test_geojson_per_georeferenced_scene_is_valid_wgs84(release) -> None:
    root = _root(release)
    assert sorted(p.name for p in (root / "geo").iterdir()) == [
        "saro-roundabout.geojson",
        "saro-roundabout.movingfeatures.json",
    ]  # the Kraklanda scene has no georeference, so no GeoJSON
    collection = json.loads((root / "geo" / "saro-roundabout.geojson").read_text())
    assert collection["type"] == "FeatureCollection"
    kinds = {f["properties"]["kind"]: f for f in collection["features"]}
    assert kinds["ellipse"]["geometry"]["type"] == "Polygon"  # GeoJSON has no ellipse
    for feature in collection["features"]:
        geometry = shape(feature["geometry"])
        assert geometry.is_valid
        minx, miny, maxx, maxy = geometry.bounds
        assert 12.007 < minx <= maxx < 12.012 and 57.483 < miny <= maxy < 57.486  # lon, lat order
    assert len(kinds["ellipse"]["properties"]["items"]) == 2


def test_trajectories_as_ogc_moving_features(release) -> None:
    moving = json.loads((_root(release) / "geo" / "saro-roundabout.movingfeatures.json").read_text())
    [feature] = moving["features"]
    geometry = feature["temporalGeometry"]
    assert geometry["type"] == "MovingPoint" and geometry["interpolation"] == "Linear"
    times = [datetime.fromisoformat(t.replace("Z", "+00:00")) for t in geometry["datetimes"]]
    assert [(t - times[0]).total_seconds() for t in times] == [0.0, 0.5, 1.5]
    assert len(geometry["coordinates"]) == 3


def test_variants_questions_and_human_answers(release) -> None:
    root = _root(release)
    circular = [json.loads(line) for line in (root / "variants" / "circular.jsonl").read_text().splitlines()]
    direction = [c for c in circular if c["task"] == "relative_direction"]
    assert [c["options"] for c in direction] == [SECTORS[k:] + SECTORS[:k] for k in (1, 2, 3)]
    assert {c["answer"] for c in direction} == {"south"}
    blind = [json.loads(line) for line in (root / "variants" / "no_visual.jsonl").read_text().splitlines()]
    assert all("media" not in b for b in blind) and len(blind) == 4


def test_datasheet_names_counts_licenses_and_limitations(release) -> None:
    page = (_root(release) / "datasheet" / "index.html").read_text()
    assert "Datasheet · Skymark release 1.0" in page
    assert "relative_direction" in page and "Known limitations" in page
    assert (_root(release) / "datasheet" / "key_positions.png").read_bytes().startswith(b"\x89PNG")
    assert (_root(release) / "datasheet" / "scenes.png").is_file()  # one scene is georeferenced


def test_writing_the_same_release_twice_gives_the_same_bytes(release, tmp_path: Path) -> None:
    records = [e.record for e in release.entries.all()]

    def build(into: Path) -> dict[str, str]:
        into.mkdir()
        write_release(
            into,
            version="1.0",
            records=records,
            sources=release.sources,
            meta={"filters": release.filters, "changelog": release.changelog},
            open_media=lambda name: default_storage.open(name, "rb"),
        )
        return {
            p.relative_to(into).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in into.rglob("*")
            if p.is_file()
        }

    first, second = build(tmp_path / "a"), build(tmp_path / "b")
    assert first == second
    # and the stored release is those same bytes
    stored = {f["path"]: f["sha256"] for f in release.manifest["files"]}
    assert {k: v for k, v in first.items() if k != "manifest.json"} == stored


def test_the_whole_release_downloads_as_a_streamed_zip(release, admin, client) -> None:
    client.force_login(admin)
    response = client.get("/releases/1.0.zip")
    assert response.status_code == 200 and response.streaming
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    names = set(archive.namelist())
    assert names == {f"skymark-1.0/{f['path']}" for f in release.manifest["files"]} | {"skymark-1.0/manifest.json"}
    entry = next(f for f in release.manifest["files"] if f["path"] == "items.jsonl")
    assert hashlib.sha256(archive.read("skymark-1.0/items.jsonl")).hexdigest() == entry["sha256"]
    # a single file too, and only files the manifest lists
    assert client.get("/releases/1.0/vlmevalkit/skymark-1.0.tsv").status_code == 200
    assert client.get("/releases/1.0/../../secret").status_code == 404
