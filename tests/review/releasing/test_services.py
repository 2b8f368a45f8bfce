"""review.releasing: freezing approved items, building the files aside, changelogs, failures, and
frozen rows that the database itself refuses to change."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction

from annotator.exceptions import Conflict
from annotator.models import Item, ModelView
from review.models import Release, ReleaseItem
from review.releasing import jobs
from review.releasing.services import release_build, release_create, release_discard
from tests.factories import ItemFactory, SatelliteImageFactory, SceneFactory, png_bytes

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


@pytest.fixture
def release_files(media_files):  # type: ignore[no-untyped-def]
    """Stored files under releases/ (scenes' media is not what these tests are about)."""
    return lambda: {f for f in media_files() if f.startswith("releases/") and "/.building" not in f}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _content_path(path: str) -> str:
    digest = _sha(Path(path))
    return f"media/{digest[:2]}/{digest}{Path(path).suffix}"


def test_release_freezes_approved_items_and_ships_every_file_with_its_sha256(approved, admin, media_root) -> None:
    # given three approved items and some that are not approved
    for state in (Item.State.DRAFT, Item.State.IN_REVIEW, Item.State.REJECTED):
        ItemFactory(state=state)

    # when an admin builds release 1.0
    release = release_build(version="1.0", user=admin)

    # then it is frozen with the approved items only
    row = Release.objects.get(id=release.id)
    assert (row.version, row.state, row.item_count, row.created_by) == ("1.0", "frozen", 3, admin)
    assert sorted(row.items.values_list("id", flat=True)) == sorted(i.id for i in approved)
    # and items.jsonl holds one record per item, in id order, with the key, split and media paths
    root = media_root / row.root
    records = [json.loads(line) for line in (root / "items.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records] == [i.uid for i in approved]
    assert [r["answer"] for r in records] == ["yes", "no", "7"]
    assert (records[2]["task"], records[2]["dimension"], records[2]["answer_format"]) == (
        "zone_counting",
        "perception",
        "number",
    )
    assert records[0]["scene"] == "Saro" and records[0]["video"]["duration_s"] == 2.0
    assert records[0]["satellite_images"][0]["corners"] == {"tl": [57.48, 12.01]}
    assert records[0]["split"] == "test"  # one scene: the test split holds it
    # and the media it names are in the release, byte for byte
    video = approved[0].scene.video
    assert records[0]["media"]["video"] == f"media/{video.sha256[:2]}/{video.sha256}.mp4"  # by content
    assert _sha(root / records[0]["media"]["video"]) == video.sha256
    assert (root / records[0]["media"]["images"][0]).is_file()
    # and the manifest lists every file with its sha256 and size, and is itself stored
    listed = {f["path"]: f for f in row.manifest["files"]}
    on_disk = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} - {"manifest.json"}
    assert set(listed) == on_disk
    for path, entry in listed.items():
        assert (entry["sha256"], entry["bytes"]) == (_sha(root / path), (root / path).stat().st_size), path
    assert row.manifest["tasks"] == {"target_visibility": 2, "zone_counting": 1}
    assert row.manifest["splits"] == {"full": 3, "test": 3, "train": 0, "tiny": 3}
    assert json.loads((root / "manifest.json").read_text()) == row.manifest
    for expected in ("questions.jsonl", "README.md", "datasheet/index.html", "variants/no_visual.jsonl"):
        assert expected in listed
    assert all("answer" not in json.loads(line) for line in (root / "questions.jsonl").read_text().splitlines())


def test_filters_choose_the_items(approved, admin) -> None:
    release = release_build(version="1.0", user=admin, tasks=[Item.Task.ZONE_COUNTING])
    assert [e.item_id for e in release.entries.all()] == [approved[2].id]
    assert release.manifest["filters"]["tasks"] == ["zone_counting"]


def test_a_correction_is_a_new_version_with_a_changelog(approved, admin) -> None:
    # given release 1.0 / when another item is approved and 1.1 built
    first = release_build(version="1.0", user=admin)
    extra = ItemFactory(
        state=Item.State.APPROVED,
        scene=approved[0].scene,
        author=approved[0].author,
        task=Item.Task.ZONE_COUNTING,
        options=[],
        answer="3",
        answer_format=Item.AnswerFormat.NUMBER,
    )
    second = release_build(version="1.1", user=admin)

    # then 1.1 names what changed since 1.0, and 1.0 is as it was
    assert second.parent == first
    assert second.changelog == {"since": "1.0", "added": [extra.uid], "removed": [], "changed": []}
    assert Release.objects.get(version="1.0").item_count == 3


def test_empty_or_taken_or_malformed_versions_are_refused(approved, admin, release_files) -> None:
    release_build(version="1.0", user=admin)
    files = release_files()
    with pytest.raises(ValidationError) as err:
        release_build(version=" 1.0 ", user=admin)
    assert err.value.message_dict == {"version": ["release 1.0 exists; releases are immutable"]}
    for bad in ("", "latest", "1.0/../../etc", "1..2", "v1.2.3.4"):
        with pytest.raises(ValidationError, match=r"use a version like 1\.0"):
            release_build(version=bad, user=admin)
    with pytest.raises(ValidationError, match="no approved items to release"):
        release_build(version="2.0", user=admin, tasks=[Item.Task.RELATIVE_DIRECTION])
    assert release_files() == files
    assert Release.objects.count() == 1


def test_a_version_being_built_answers_conflict(approved, admin) -> None:
    release_create(version="1.0", user=admin, enqueue=False)
    with pytest.raises(Conflict, match="being built right now"):
        release_create(version="1.0", user=admin, enqueue=False)


def test_a_failed_build_leaves_no_file_and_says_why(approved, admin, release_files, monkeypatch) -> None:
    # given a build whose files cannot be moved into storage
    release = release_create(version="1.0", user=admin, enqueue=False)

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError("disk full")

    monkeypatch.setattr(jobs, "store_tree", broken)

    # when it runs / then the release is failed with the reason and nothing is stored
    with pytest.raises(OSError, match="disk full"):
        jobs.release_run(release_id=release.id)
    release.refresh_from_db()
    assert (release.state, release.error) == ("failed", "OSError: disk full")
    assert release_files() == set()
    # and the failed release can be discarded, so the version can be used again
    monkeypatch.undo()
    release_discard(release_id=release.id)
    assert release_build(version="1.0", user=admin).state == "frozen"


def test_running_a_frozen_release_again_does_nothing(approved, admin, release_files) -> None:
    release = release_build(version="1.0", user=admin)
    files = release_files()
    again = jobs.release_run(release_id=release.id)
    assert (again.state, again.frozen_at) == ("frozen", release.frozen_at)
    assert release_files() == files


@pytest.mark.django_db(transaction=True)
def test_frozen_rows_refuse_update_and_delete_in_the_database(approved, admin) -> None:
    release = release_build(version="1.0", user=admin)
    entry = ReleaseItem.objects.filter(release=release).first()
    assert entry is not None
    attempts = [
        lambda: Release.objects.filter(id=release.id).update(version="9.9"),
        lambda: Release.objects.filter(id=release.id).delete(),
        lambda: ReleaseItem.objects.filter(id=entry.id).update(split="train"),
        lambda: ReleaseItem.objects.filter(id=entry.id).delete(),
        lambda: Item.objects.filter(id=approved[0].id).update(answer="no"),
        lambda: Item.objects.filter(id=approved[0].id).delete(),
    ]
    for attempt in attempts:
        with pytest.raises(IntegrityError), transaction.atomic():
            attempt()
    assert Release.objects.get(id=release.id).version == "1.0"
    assert Item.objects.get(id=approved[0].id).answer == "yes"
    # an item outside every release still changes as usual
    free = ItemFactory(state=Item.State.DRAFT)
    assert Item.objects.filter(id=free.id).update(question="Is it there?") == 1


def _model_view(item: Item, state: str = "succeeded") -> None:
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from annotator.models import ModelView
    from tests.factories import png_bytes

    image = default_storage.save(f"modelviews/{item.id}-view.png", ContentFile(png_bytes(40, 20, 1)))
    option = default_storage.save(f"modelviews/{item.id}-A.png", ContentFile(png_bytes(10, 10, 2)))
    segment = default_storage.save(f"modelviews/{item.id}-segment.mp4", ContentFile(b"segment bytes"))
    ModelView.objects.create(
        item=item,
        state=state,
        error="" if state != "failed" else "ffmpeg broke",
        image=image,
        video=segment,
        segment_start_s=1.0,
        segment_end_s=3.0,
        option_images=[{"option": "A", "file": option}],
    )


def test_a_release_ships_each_items_model_view(approved, admin, media_root) -> None:
    # given an item whose model view (marked image, option image, segment) is rendered
    _model_view(approved[0])

    # when released / then its record points at the model view's files, which are in the release
    release = release_build(version="1.0", user=admin)
    root = media_root / release.root
    record = json.loads((root / "items.jsonl").read_text().splitlines()[0])
    view = ModelView.objects.get(item=approved[0])
    by_content = {n: _content_path(default_storage.path(n)) for n in (view.image.name, view.video.name)}
    assert record["media"]["images"] == [by_content[view.image.name]]
    [option] = record["media"]["option_images"]
    assert option["option"] == "A" and (root / option["image"]).read_bytes() == png_bytes(10, 10, 2)
    assert (record["media"]["video"], record["media"]["segment_s"]) == (by_content[view.video.name], [1.0, 3.0])
    assert (root / record["media"]["video"]).read_bytes() == b"segment bytes"
    # and items without a model view (compiled before they existed) keep the scene's media
    other = json.loads((root / "items.jsonl").read_text().splitlines()[1])
    video = approved[1].scene.video
    assert other["media"]["video"] == f"media/{video.sha256[:2]}/{video.sha256}.mp4"


def test_items_whose_model_view_failed_hold_the_release_back(approved, admin) -> None:
    _model_view(approved[1], state="failed")
    with pytest.raises(ValidationError, match=r"1 item\(s\) have a model view that failed to render"):
        release_build(version="1.0", user=admin)
    assert not Release.objects.exists()


def test_a_queued_model_view_with_nothing_to_draw_on_is_refused_at_the_freeze(approved, admin) -> None:
    _model_view(approved[1], state="pending")  # its item names no marks, so no image to draw on
    with pytest.raises(ValidationError, match=rf"no model view yet and no marked satellite image.*{approved[1].uid}"):
        release_build(version="1.0", user=admin)
    assert not Release.objects.exists()


@pytest.mark.parametrize("state", ["pending", "running"])
def test_the_build_draws_a_queued_model_view_itself_as_the_job_draws_it(annotator, admin, state: str) -> None:
    from annotator.compiling.modelview import model_view_render
    from tests.factories import MarkFactory

    # given an approved item whose model view job has not run yet (the queue is behind)
    image = SatelliteImageFactory()
    scene = SceneFactory(satellite_images=[image], annotators=[annotator])
    mark = MarkFactory(scene=scene, author=annotator, satellite_image=image)
    item = ItemFactory(scene=scene, author=annotator, state=Item.State.APPROVED, marks=[mark])
    Item.objects.filter(id=item.id).update(provenance={**item.provenance, "shown": [mark.id]})
    view = ModelView.objects.create(item=item, state=state)

    # when released / then the build drew the view itself and the release does not wait
    release = release_build(version="1.0", user=admin, balance_yes_no=False)
    root = Path(default_storage.path(release.root))
    [record] = [json.loads(line) for line in (root / "items.jsonl").read_text().splitlines()]
    shipped = (root / record["media"]["images"][0]).read_bytes()
    # and it is what the job draws once it runs
    ModelView.objects.filter(id=view.id).update(state="pending")
    assert model_view_render(view_id=view.id)
    view.refresh_from_db()
    assert shipped == view.image.read() and shipped.startswith(b"\xff\xd8")
