"""review.releasing.shelf: a release stores each distinct media file once, by content, hard-linked
from storage on the same disk (copied elsewhere), and removing a release leaves its sources whole."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.files.storage import default_storage

from annotator.models import Item
from review.releasing.services import release_build
from review.releasing.shelf import Shelf, content_path
from tests.factories import ItemFactory, SatelliteImageFactory, SceneFactory, VideoFactory

pytestmark = pytest.mark.django_db


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def two_scenes(annotator):  # type: ignore[no-untyped-def]
    """Two scenes whose videos were uploaded twice (same bytes, two stored files), one item each."""
    scenes = [
        SceneFactory(name=name, video=VideoFactory(), satellite_images=[SatelliteImageFactory()])
        for name in ("Saro", "Kraklanda")
    ]
    assert scenes[0].video.file.name != scenes[1].video.file.name
    for scene, answer in zip(scenes, ("yes", "no"), strict=True):
        ItemFactory(scene=scene, author=annotator, state=Item.State.APPROVED, answer=answer)
    return scenes


def test_a_video_shared_by_two_scenes_ships_once_hard_linked_and_the_release_verifies(two_scenes, admin) -> None:
    # when released
    release = release_build(version="1.0", user=admin)
    root = Path(default_storage.path(release.root))
    records = [json.loads(line) for line in (root / "items.jsonl").read_text().splitlines()]

    # then both records point at one file, named by its content
    videos = {r["media"]["video"] for r in records}
    sha = two_scenes[0].video.sha256
    assert videos == {content_path(sha, "mp4")}
    listed = [f for f in release.manifest["files"] if f["sha256"] == sha]
    assert [f["path"] for f in listed] == [content_path(sha, "mp4")]
    assert list((root / "media").rglob("*.mp4")) == [root / content_path(sha, "mp4")]
    # and it is a hard link to one of the stored files (same inode), not a copy
    shipped = (root / content_path(sha, "mp4")).stat()
    sources = [Path(default_storage.path(s.video.file.name)).stat() for s in two_scenes]
    assert shipped.st_ino in {s.st_ino for s in sources} and shipped.st_nlink == 2
    # and every file the manifest lists is there with its sha256 and size, and nothing else
    on_disk = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} - {"manifest.json"}
    assert on_disk == {f["path"] for f in release.manifest["files"]}
    for entry in release.manifest["files"]:
        path = root / entry["path"]
        assert (_sha(path), path.stat().st_size) == (entry["sha256"], entry["bytes"]), entry["path"]


def test_removing_a_release_leaves_the_linked_sources_whole(two_scenes, admin) -> None:
    release = release_build(version="1.0", user=admin)
    stored = [Path(default_storage.path(s.video.file.name)) for s in two_scenes]
    stored += [Path(default_storage.path(s.satellite_images.get().file.name)) for s in two_scenes]
    before = {p: _sha(p) for p in stored}

    shutil.rmtree(default_storage.path(release.root))

    assert {p: _sha(p) for p in stored} == before
    assert all(p.stat().st_nlink == 1 for p in stored)


def test_the_same_bytes_under_two_names_are_stored_once_and_copied_when_not_on_this_disk(tmp_path: Path) -> None:
    # given two stored files with the same bytes and one with other bytes, readable only as streams
    blobs = {"a/one.png": b"same picture", "b/two.png": b"same picture", "c/three.jpg": b"another"}
    root = tmp_path / "release"
    root.mkdir()
    shelf = Shelf(root, open_media=lambda name: io.BytesIO(blobs[name]))

    # when each is placed under the name records give it
    paths = {name: shelf.put_stored(f"media/items/{name}", name) for name in sorted(blobs)}

    # then the two equal ones share one file named by their content, and nothing was linked
    same = hashlib.sha256(b"same picture").hexdigest()
    assert paths["a/one.png"] == paths["b/two.png"] == f"media/{same[:2]}/{same}.png"
    assert [(p.path, p.size) for p in shelf.files()] == sorted(
        [(f"media/{same[:2]}/{same}.png", 12), (content_path(hashlib.sha256(b"another").hexdigest(), "jpg"), 7)]
    )
    assert shelf.linked == 0
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) == sorted(
        p.path for p in shelf.files()
    )
    assert shelf.path("media/items/b/two.png") == paths["b/two.png"]


def test_a_source_on_another_file_system_is_copied(tmp_path: Path) -> None:
    other = Path("/dev/shm")
    if not other.is_dir() or other.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("needs a second file system")
    source = other / f"skymark-shelf-{tmp_path.name}.mp4"
    source.write_bytes(b"a clip")
    try:
        root = tmp_path / "release"
        root.mkdir()
        shelf = Shelf(root, open_media=lambda name: source.open("rb"), local_source=lambda name: source)
        path = shelf.put_stored("media/videos/x.mp4", "videos/x.mp4")
        assert (root / path).read_bytes() == b"a clip" and shelf.linked == 0
        assert (root / path).stat().st_ino != source.stat().st_ino
    finally:
        source.unlink()


def test_clips_left_to_the_storage_copy_are_hashed_once_and_not_written(tmp_path: Path) -> None:
    # given storage that copies on its own side: two stored clips with the same bytes, and a picture
    blobs = {"v/one.mp4": b"same clip", "v/two.mp4": b"same clip", "p/view.jpg": b"a picture"}
    root = tmp_path / "release"
    root.mkdir()
    later: list[tuple[str, str]] = []
    shelf = Shelf(
        root, open_media=lambda name: io.BytesIO(blobs[name]), copy_later=lambda name, path: later.append((name, path))
    )

    # when the clips are placed as not embedded, and the picture as a format embeds it
    one = shelf.put_stored("media/videos/one.mp4", "v/one.mp4", embedded=False)
    two = shelf.put_stored("media/videos/two.mp4", "v/two.mp4", embedded=False)
    picture = shelf.put_stored("media/items/x/view.jpg", "p/view.jpg", embedded=True)

    # then the clip is one file named by its content, left to the storage's copy once (not written
    # here), and the picture is written here; the listing has both with their sha256 and size
    sha = hashlib.sha256(b"same clip").hexdigest()
    assert one == two == content_path(sha, "mp4")
    assert later == [("v/one.mp4", one)] and shelf.elsewhere == {one: "v/one.mp4"}
    assert [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()] == [picture]
    assert {(p.path, p.sha256, p.size) for p in shelf.files()} == {
        (one, sha, 9),
        (picture, hashlib.sha256(b"a picture").hexdigest(), 9),
    }
