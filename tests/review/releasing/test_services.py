"""review.releasing.services: frozen, versioned releases with a sha256 manifest."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError

from annotator.models import Item
from review.models import Release
from review.releasing.services import release_build, release_contents
from tests.factories import ItemFactory, SatelliteImageFactory, SceneFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def approved(annotator) -> list[Item]:  # type: ignore[no-untyped-def]
    scene = SceneFactory(name="Saro", satellite_images=[SatelliteImageFactory(corners={"tl": [57.48, 12.01]})])
    return [
        ItemFactory(scene=scene, author=annotator, state=Item.State.APPROVED, answer="yes"),
        ItemFactory(scene=scene, author=annotator, state=Item.State.APPROVED, answer="no"),
        ItemFactory(
            scene=scene,
            author=annotator,
            state=Item.State.APPROVED,
            task=Item.Task.ZONE_COUNTING,
            options=[],
            answer="7",
            answer_format=Item.AnswerFormat.NUMBER,
        ),
    ]


def _read(root: Path, name: str) -> bytes:
    return (root / name).read_bytes()


@pytest.fixture
def release_files(media_files):  # type: ignore[no-untyped-def]
    """Stored files under releases/ (scenes' media is not what these tests are about)."""
    return lambda: {f for f in media_files() if f.startswith("releases/")}


def test_release_writes_items_and_a_manifest_whose_sha256_matches(approved, admin, media_root) -> None:
    # given three approved items and some that are not approved
    for state in (Item.State.DRAFT, Item.State.IN_REVIEW, Item.State.REJECTED):
        ItemFactory(state=state)

    # when an admin builds release 1.0
    release = release_build(version="1.0", user=admin)

    # then the row lists the approved items only
    row = Release.objects.get(id=release.id)
    assert (row.version, row.item_count, row.created_by) == ("1.0", 3, admin)
    assert sorted(row.items.values_list("id", flat=True)) == sorted(i.id for i in approved)
    # and items.jsonl holds one record per item, in id order, with the frozen key and provenance
    data = _read(media_root, row.items_file)
    records = [json.loads(line) for line in data.decode().splitlines()]
    assert [r["id"] for r in records] == [i.uid for i in approved]
    assert [r["answer"] for r in records] == ["yes", "no", "7"]
    assert (records[2]["task"], records[2]["dimension"], records[2]["answer_format"]) == (
        "zone_counting",
        "perception",
        "number",
    )
    assert records[0]["scene"] == "Saro" and records[0]["video"]["duration_s"] == 2.0
    assert records[0]["satellite_images"][0]["corners"] == {"tl": [57.48, 12.01]}
    # and the manifest's sha256 and size are those of the file's bytes
    [entry] = row.manifest["files"]
    assert entry == {"path": "items.jsonl", "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    assert row.manifest["items"] == 3
    assert row.manifest["tasks"] == {"target_visibility": 2, "zone_counting": 1}
    assert row.manifest["yes_no_answers"] == {"no": 1, "yes": 1}
    # and manifest.json on storage is the same manifest
    assert json.loads(_read(media_root, row.manifest_file)) == row.manifest
    assert {row.items_file, row.manifest_file} == {"releases/1.0/items.jsonl", "releases/1.0/manifest.json"}


def test_same_items_give_the_same_manifest_but_the_version(approved, admin, media_root) -> None:
    # given release 1.0 / when 1.1 is built from the same approved items
    first = release_build(version="1.0", user=admin)
    second = release_build(version="1.1", user=admin)

    # then the item bytes are identical and the manifests differ only in the version
    assert _read(media_root, first.items_file) == _read(media_root, second.items_file)
    assert {**first.manifest, "version": "x"} == {**second.manifest, "version": "x"}
    assert (first.manifest["version"], second.manifest["version"]) == ("1.0", "1.1")


def test_release_contents_is_pure(approved) -> None:
    # the same items in any order give the same bytes
    assert release_contents(approved, "2.0") == release_contents(list(reversed(approved)), "2.0")


def test_later_approvals_do_not_change_an_earlier_release(approved, admin, media_root) -> None:
    # given release 1.0
    first = release_build(version="1.0", user=admin)
    frozen = _read(media_root, first.items_file)

    # when another item is approved and 2.0 is built
    ItemFactory(state=Item.State.APPROVED)
    second = release_build(version="2.0", user=admin)

    # then 1.0's file and item set stay as they were
    assert _read(media_root, first.items_file) == frozen
    assert Release.objects.get(version="1.0").items.count() == 3
    assert second.item_count == 4


def test_empty_release_is_refused(admin, release_files) -> None:
    ItemFactory(state=Item.State.IN_REVIEW)
    with pytest.raises(ValidationError) as err:
        release_build(version="1.0", user=admin)
    assert err.value.message_dict == {"version": ["there are no approved items to release"]}
    assert Release.objects.count() == 0
    assert release_files() == set()


def test_duplicate_version_is_refused(approved, admin, media_root, release_files) -> None:
    # given release 1.0
    release_build(version="1.0", user=admin)
    files = release_files()
    before = _read(media_root, "releases/1.0/items.jsonl")

    # when 1.0 is built again (after another approval) / then it is refused and nothing changes
    ItemFactory(state=Item.State.APPROVED)
    with pytest.raises(ValidationError) as err:
        release_build(version=" 1.0 ", user=admin)
    assert err.value.message_dict == {"version": ["release 1.0 exists; releases are immutable"]}
    assert release_files() == files
    assert _read(media_root, "releases/1.0/items.jsonl") == before
    assert Release.objects.count() == 1


@pytest.mark.parametrize("version", ["", "latest", "1.0/../../etc", "1..2", "v1.2.3.4"])
def test_malformed_version_is_refused(approved, admin, release_files, version: str) -> None:
    with pytest.raises(ValidationError) as err:
        release_build(version=version, user=admin)
    assert err.value.message_dict == {"version": ["use a version like 1.0 or v1.2.0"]}
    assert release_files() == set()


@pytest.mark.parametrize("version", ["1", "1.0", "v1.2.0", "2.0-rc.1", "1.0+build5"])
def test_accepted_versions(approved, admin, version: str) -> None:
    assert release_build(version=version, user=admin).version == version


def test_no_files_are_left_when_the_row_cannot_be_written(approved, admin, release_files, monkeypatch) -> None:
    # given a database that fails after both files were written
    def broken(**kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("database went away")

    monkeypatch.setattr(Release.objects, "create", broken)

    # when the build fails / then the error surfaces and both files are removed again
    with pytest.raises(RuntimeError, match="database went away"):
        release_build(version="1.0", user=admin)
    assert release_files() == set()
    assert Release.objects.count() == 0
