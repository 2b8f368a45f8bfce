"""Backup and restore end to end: a real instance's state backed up with `manage.py backup`, restored
with `manage.py restore` into a separate empty instance (its own database and media folder, in a
subprocess) and checked from there; and the archives a restore must refuse, leaving the target empty."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command

from annotator.compiling import lifecycle
from annotator.compiling.modelview import model_view_render
from annotator.compiling.services import item_compile
from annotator.intake.services import SceneSpec, scene_import
from annotator.models import Item, Keyframe, MediaJob, ModelView
from review.models import ItemEvent, Review
from review.releasing.services import release_build
from tests.config.backup.instance import Instance, instance_summary, separate_instance
from tests.factories import AdminFactory, AnnotatorFactory, MarkFactory, ReviewerFactory, VideoFactory, tiny_video
from tests.review.flow import vote

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "kite-runway-42"


@pytest.fixture
def target(tmp_path: Path):  # type: ignore[no-untyped-def]
    with separate_instance(tmp_path / "restored") as instance:
        yield instance


def _world(settings: Any) -> dict[str, Any]:
    """The state a working instance has: people with passwords, a processed scene, marks, items with
    model views, reviews, audit events and a frozen release with its files."""
    admin = AdminFactory(username="ada")
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]  # what production uses
    annotator = AnnotatorFactory(username="ann", email="ann@example.org")
    annotator.set_password(PASSWORD)
    annotator.save()
    reviewers = [ReviewerFactory(username="rev1"), ReviewerFactory(username="rev2")]
    scene = scene_import(
        spec=SceneSpec(name="Backup field", video=tiny_video(), satellite_from_keyframe_s=0.0, annotators=["ann"]),
        created_by=admin,
    )
    call_command("process_scenes", str(scene.id))
    items = []
    for visible in (True, False):
        mark = MarkFactory(scene=scene, author=annotator, facts={"visible": visible})
        items.append(item_compile(user=annotator, task=Item.Task.TARGET_VISIBILITY, mark_ids=[mark.id]))
    for view in ModelView.objects.filter(item__in=items):
        model_view_render(view_id=view.id)
    for item in items:
        lifecycle.item_submit(item=item, actor=annotator)
        for reviewer in reviewers:
            vote(item, reviewer, item.answer, "approve")
    release = release_build(version="1.0", user=admin)
    assert release.state == "frozen" and release.item_count == 2
    return {"release": release, "items": items, "scene": scene}


def test_backup_restores_into_an_empty_instance_with_every_row_file_password_and_trigger(
    settings, tmp_path: Path, target: Instance
) -> None:
    # given a working instance (a processed scene, reviewed items, a frozen release)
    world = _world(settings)
    assert MediaJob.objects.filter(state="succeeded").count() >= 4 and Keyframe.objects.exists()
    assert Review.objects.count() == 4 and ItemEvent.objects.count() >= 6
    source = instance_summary()
    archive = tmp_path / "skymark.tar"

    # when it is backed up, and restored into a separate empty instance
    call_command("backup", str(archive))
    if target.url.startswith("postgres"):
        # a freshly migrated database counts as empty too (what `docker compose up` leaves)
        assert target.manage("migrate", "--noinput").returncode == 0
    done = target.manage("restore", str(archive))
    assert done.returncode == 0, done.stderr[-3000:]

    # then every row of every table and every stored file is the same there, byte for byte
    restored = target.summary()
    assert restored["rows"].keys() == source["rows"].keys()
    for table, rows in source["rows"].items():
        assert restored["rows"][table] == rows, table
    assert restored["files"] == source["files"]
    assert any(name.startswith("keyframes/") for name in source["files"])
    assert target.files() == set(source["files"])
    # and the manifest's counts are those of the source
    with tarfile.open(archive) as tar:
        manifest = json.load(tar.extractfile("manifest.json"))  # type: ignore[arg-type]
    assert manifest["tables"]["annotator_item"] == 2 and manifest["tables"]["review_release"] == 1
    assert {e["name"] for e in manifest["media"]} == set(source["files"])
    # and there a person logs in with their password, the release's files verify against its
    # manifest, and the database still refuses to change a released item or the audit log
    release, item = world["release"], world["items"][0]
    checks = target.python(
        "import hashlib\n"
        "from django.contrib.auth import authenticate\n"
        "from django.core.files.storage import default_storage\n"
        "from django.db import IntegrityError, transaction\n"
        "from annotator.models import Item\n"
        "from review.models import ItemEvent, Release\n"
        f"release = Release.objects.get(id={release.id})\n"
        "def sha(name):\n"
        "    with default_storage.open(name, 'rb') as fh: return hashlib.sha256(fh.read()).hexdigest()\n"
        "verified = [sha(f'{release.root}/{f[\"path\"]}') == f['sha256'] for f in release.manifest['files']]\n"
        "def refused(attempt):\n"
        "    try:\n"
        "        with transaction.atomic(): attempt()\n"
        "    except IntegrityError: return True\n"
        "    return False\n"
        "emit({\n"
        f"  'login': getattr(authenticate(username='ann', password={PASSWORD!r}), 'username', None),\n"
        "  'wrong': authenticate(username='ann', password='nope') is None,\n"
        "  'verified': verified,\n"
        f"  'item': refused(lambda: Item.objects.filter(id={item.id}).update(answer='no')),\n"
        f"  'release': refused(lambda: Release.objects.filter(id={release.id}).update(version='9')),\n"
        "  'audit': refused(lambda: ItemEvent.objects.all().delete()),\n"
        f"  'answer': Item.objects.get(id={item.id}).answer,\n"
        "})"
    )
    assert checks["login"] == "ann" and checks["wrong"]
    if target.url.startswith("postgres"):
        # and the planner has column statistics for what was loaded (pg_restore writes none)
        stats = target.python(
            "from django.db import connection\n"
            "with connection.cursor() as c:\n"
            "    c.execute(\"SELECT count(*) FROM pg_stats WHERE tablename = 'annotator_item'\")\n"
            "    emit(c.fetchone()[0])"
        )
        assert stats > 0
    assert len(checks["verified"]) == len(release.manifest["files"]) > 3 and all(checks["verified"])
    assert (checks["item"], checks["release"], checks["audit"]) == (True, True, True)
    assert checks["answer"] == item.answer


# ---- archives a restore refuses --------------------------------------------------------------


@pytest.fixture
def small_archive(tmp_path: Path) -> Path:
    """A backup of a user and two stored files."""
    AnnotatorFactory(username="ann")
    default_storage.save("videos/2026/11/clip.mp4", ContentFile(b"\x00\x01video" * 5000))
    default_storage.save("keyframes/k1.jpg", ContentFile(b"jpeg" * 300))
    archive = tmp_path / "small.tar"
    call_command("backup", str(archive))
    return archive


def _rewrite(archive: Path, out: Path, change: dict[str, Any]) -> Path:
    """A copy of `archive` with members replaced: {member name: new bytes}."""
    with tarfile.open(archive) as src, tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as dst:
        for member in src:
            data = change.get(member.name, src.extractfile(member).read())  # type: ignore[union-attr]
            member.size = len(data)
            dst.addfile(member, io.BytesIO(data))
    return out


def _tampered(archive: Path, out: Path) -> Path:
    """One media file changed, same size, manifest untouched (an altered or bit-rotten archive)."""
    with tarfile.open(archive) as tar:
        data = bytearray(tar.extractfile("media/videos/2026/11/clip.mp4").read())  # type: ignore[union-attr]
    data[100] ^= 0xFF
    return _rewrite(archive, out, {"media/videos/2026/11/clip.mp4": bytes(data)})


def _format_2(archive: Path, out: Path) -> Path:
    with tarfile.open(archive) as tar:
        manifest = json.load(tar.extractfile("manifest.json"))  # type: ignore[arg-type]
    manifest["format_version"] = 2
    return _rewrite(archive, out, {"manifest.json": json.dumps(manifest).encode()})


def _truncated(archive: Path, out: Path) -> Path:
    out.write_bytes(archive.read_bytes()[: archive.stat().st_size * 2 // 3])
    return out


def _garbage(archive: Path, out: Path) -> Path:
    data = bytearray(archive.read_bytes())
    data[0:512] = b"\x5a" * 512  # the first member's header
    out.write_bytes(bytes(data))
    return out


def _bogus_database(archive: Path, out: Path) -> Path:
    """A database member that is no database, with a manifest that agrees (a hostile archive): it
    passes the sha256 checks, so the failure comes after the media files were written."""
    with tarfile.open(archive) as tar:
        manifest = json.load(tar.extractfile("manifest.json"))  # type: ignore[arg-type]
    bogus = b"this is not a database\n" * 200
    manifest["database"] |= {"sha256": hashlib.sha256(bogus).hexdigest(), "size": len(bogus)}
    member = manifest["database"]["member"]
    return _rewrite(archive, out, {member: bogus, "manifest.json": json.dumps(manifest).encode()})


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (_tampered, "sha256"),
        (_format_2, "format version 2"),
        (_truncated, "truncated"),
        (_garbage, "damaged or truncated"),
        (_bogus_database, "the archive's database could not be loaded"),
    ],
)
def test_damaged_archive_is_refused_and_leaves_the_target_empty(
    small_archive: Path, tmp_path: Path, target: Instance, damage: Any, message: str
) -> None:
    # given a damaged copy of a good archive
    bad = damage(small_archive, tmp_path / "bad.tar")

    # when it is restored into an empty instance
    done = target.manage("restore", str(bad))

    # then the restore fails with a sentence saying why, and the target holds no rows and no files
    assert done.returncode != 0
    assert message in done.stderr, done.stderr[-2000:]
    assert target.tables() == {}
    assert target.files() == set()


def test_non_empty_target_is_refused_untouched_and_force_replaces_it(
    small_archive: Path, tmp_path: Path, target: Instance
) -> None:
    # given an instance the archive was restored into, that then got more work
    assert target.manage("restore", str(small_archive)).returncode == 0
    target.python(
        "from django.core.files.base import ContentFile\n"
        "from django.core.files.storage import default_storage\n"
        "from tests.factories import AnnotatorFactory\n"
        "AnnotatorFactory(username='late')\n"
        "emit(default_storage.save('videos/late.mp4', ContentFile(b'late')))"
    )
    before = target.summary()

    # when the archive is restored there again
    done = target.manage("restore", str(small_archive))

    # then it is refused with a sentence naming what is there, and nothing changed
    assert done.returncode != 0
    assert "empty instance only" in done.stderr and "auth_user" in done.stderr and "--force" in done.stderr
    assert target.summary() == before

    # and with --force the instance becomes the archive's again: the later user and file are gone
    forced = target.manage("restore", "--force", str(small_archive))
    assert forced.returncode == 0, forced.stderr[-2000:]
    after = target.summary()
    assert "videos/late.mp4" not in after["files"] and len(after["files"]) == 2
    assert sorted(u[4] for u in after["rows"]["auth_user"]) == ["ann"]
    assert target.files() == {"videos/2026/11/clip.mp4", "keyframes/k1.jpg"}


def test_backup_refuses_when_a_referenced_file_is_missing_and_leaves_no_archive(tmp_path: Path) -> None:
    # given a video row whose stored file is gone
    video = VideoFactory()
    default_storage.delete(video.file.name)

    # when the instance is backed up
    with pytest.raises(CommandError) as err:
        call_command("backup", str(tmp_path / "out.tar"))

    # then it refuses, naming the file, and writes nothing
    assert video.file.name in str(err.value) and "references" in str(err.value)
    assert list(tmp_path.iterdir()) == []


def test_backup_refuses_to_write_into_the_media_folder(media_root: Path) -> None:
    with pytest.raises(CommandError) as err:
        call_command("backup", str(media_root / "backup.tar"))
    assert "outside the media folder" in str(err.value)
    assert list(media_root.iterdir()) == []


def test_older_archive_is_migrated_forward_after_restore(tmp_path: Path, target: Instance) -> None:
    # given an instance one migration behind this code, with a user, backed up
    with separate_instance(tmp_path / "old") as old:
        assert old.manage("migrate", "--noinput").returncode == 0
        back = old.manage("migrate", "annotator", "0016_withdraw_draft_revision", "--noinput")
        assert back.returncode == 0, back.stderr[-2000:]
        # (no factory: factories make the tables of this code, projects included)
        old.python("from django.contrib.auth.models import User\nUser.objects.create_user(username='old')\nemit(1)")
        backup = old.manage("backup", str(tmp_path / "old.tar"))
        assert backup.returncode == 0, backup.stderr[-2000:]

    # when it is restored here
    done = target.manage("restore", str(tmp_path / "old.tar"))

    # then the missing migration was applied after the load, and the rows came along
    assert done.returncode == 0, done.stderr[-2000:]
    assert "annotator.0017_job_workers_lost" in done.stdout
    state = target.python(
        "from django.contrib.auth.models import User\n"
        "from annotator.models import MediaJob\n"
        "emit([list(User.objects.values_list('username', flat=True)), MediaJob.objects.filter(workers_lost=0).count()])"
    )
    assert state == [["old"], 0]
