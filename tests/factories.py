"""factory_boy factories for the domain, plus small generated media.

Every file a factory creates goes through Django's storage API, so it lands in the per-test
MEDIA_ROOT that tests/conftest.py sets up.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import struct
import subprocess
import tempfile
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from factory.django import DjangoModelFactory
from PIL import Image

from annotator.access.roles import ADMIN, ANNOTATOR, REVIEWER
from annotator.compiling import lifecycle
from annotator.compiling.qa.base import mark_snapshot
from annotator.models import (
    Assignment,
    Item,
    Keyframe,
    KeyframePlacement,
    Mark,
    MediaJob,
    Project,
    ProjectMembership,
    SatelliteImage,
    Scene,
    Video,
    project_default_id,
)
from annotator.storage import sha256_file, store_path
from review.models import Review

# ---- generated media ---------------------------------------------------------------------

# What the tiny clip is, as ffprobe reports it.
TINY = {"duration_s": 2.0, "fps": 10.0, "frame_count": 20, "width": 64, "height": 48}
_CACHE = Path(tempfile.gettempdir()) / f"skymark-test-media-{os.getuid()}"


def _ffmpeg(out: Path, *args: str) -> Path:
    """Run ffmpeg once per recipe and keep the result between runs (atomic rename for xdist)."""
    if out.is_file() and out.stat().st_size > 0:
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{os.getpid()}.{out.name}")
    subprocess.run(
        ["ffmpeg", "-v", "error", "-nostdin", "-y", *args, "-f", _muxer(out), str(partial)],
        check=True,
        capture_output=True,
    )
    os.replace(partial, out)
    return out


def _muxer(path: Path) -> str:
    return {".mp4": "mp4", ".m4a": "ipod"}[path.suffix]


@lru_cache
def tiny_video() -> Path:
    """A 2 s, 10 fps, 64x48 test-pattern clip (20 frames), no audio."""
    return _ffmpeg(
        _CACHE / "tiny_64x48_10fps_2s.mp4",
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=64x48:rate=10",
        "-t",
        "2",
        "-pix_fmt",
        "yuv420p",
    )


@lru_cache
def audio_only_m4a() -> Path:
    """One second of a sine tone in an MP4 container: a valid file with no video stream."""
    return _ffmpeg(_CACHE / "sine_1s.m4a", "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac")


@lru_cache
def one_pixel_video() -> Path:
    """A valid one-second H.264 clip of 1x1 px: decodable, but nothing to annotate."""
    return _ffmpeg(
        _CACHE / "one_pixel.mp4", "-f", "lavfi", "-i", "color=c=red:s=16x16:r=5:d=1",
        "-vf", "scale=1:1:flags=neighbor", "-c:v", "libx264", "-pix_fmt", "yuv444p",
    )  # fmt: skip


def copy_to(src: Path, dst: Path) -> Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)
    return dst


def png_bytes(width: int, height: int, seed: int = 0) -> bytes:
    """A real PNG whose bytes differ per seed (satellite images are unique by sha256)."""
    img = Image.new("RGB", (width, height), (seed % 256, (seed // 256) % 256, 90))
    img.putpixel((0, 0), ((seed * 7) % 256, 3, (seed * 13) % 256))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def png_header_claiming(width: int, height: int) -> bytes:
    """A tiny PNG whose IHDR claims `width` x `height` px (a decompression-bomb header)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 16)) + chunk(b"IEND", b"")


def stored_files(root: Path) -> set[str]:
    """Every file under a media root, as paths relative to it."""
    return {str(p.relative_to(root)) for p in Path(root).rglob("*") if p.is_file()}


# ---- users -------------------------------------------------------------------------------


def _add_roles(user, create: bool, roles: list[str] | None) -> None:  # type: ignore[no-untyped-def]
    """Roles are groups; a user with roles is also a member of the default project in each (what the
    migration gives every user who existed before projects), so tests about one project need no setup."""
    if create and roles:
        user.groups.add(*[Group.objects.get_or_create(name=name)[0] for name in roles])
        project = Project.objects.get(id=project_default_id())
        for role in roles:
            if role in ProjectMembership.Role.values:
                ProjectMembership.objects.get_or_create(project=project, user=user, role=role)


class ProjectFactory(DjangoModelFactory):
    """A project with two labels (a target and a region) and a small task mix; `members={role: [users]}`."""

    class Meta:
        model = Project
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"Project {n}")
    slug = factory.Sequence(lambda n: f"project-{n}")
    labels = factory.LazyFunction(lambda: [{"name": "car", "kind": "instance"}, {"name": "road", "kind": "region"}])
    task_mix = factory.LazyFunction(lambda: {"target_visibility": 10, "zone_counting": 5})

    @factory.post_generation
    def members(self, create: bool, extracted: dict[str, list[Any]] | None, **kwargs: object) -> None:
        for role, users in (extracted or {}).items():
            for user in users:
                ProjectMembership.objects.get_or_create(project=self, user=user, role=role)


class UserFactory(DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda o: f"{o.username}@example.org")
    password = factory.django.Password("pw-test-12345")
    roles = factory.PostGeneration(lambda obj, create, extracted, **kw: _add_roles(obj, create, extracted))


class AnnotatorFactory(UserFactory):
    username = factory.Sequence(lambda n: f"annotator{n}")
    roles = factory.PostGeneration(
        lambda obj, create, extracted, **kw: _add_roles(obj, create, extracted or [ANNOTATOR])
    )


class ReviewerFactory(UserFactory):
    username = factory.Sequence(lambda n: f"reviewer{n}")
    roles = factory.PostGeneration(
        lambda obj, create, extracted, **kw: _add_roles(obj, create, extracted or [REVIEWER])
    )


class AdminFactory(UserFactory):
    username = factory.Sequence(lambda n: f"admin{n}")
    roles = factory.PostGeneration(lambda obj, create, extracted, **kw: _add_roles(obj, create, extracted or [ADMIN]))


# ---- media records -----------------------------------------------------------------------


class VideoFactory(DjangoModelFactory):
    """A stored copy of the tiny clip; probed by default (trait `unprobed` leaves the fields empty)."""

    class Meta:
        model = Video

    class Params:
        source = factory.LazyFunction(tiny_video)
        unprobed = factory.Trait(duration_s=None, fps=None, frame_count=None, width=None, height=None, codec="")

    original_name = factory.Sequence(lambda n: f"clip{n}.mp4")
    file = factory.LazyAttribute(lambda o: store_path(o.source, f"videos/{o.original_name}"))
    sha256 = factory.LazyAttribute(lambda o: sha256_file(o.source))
    size_bytes = factory.LazyAttribute(lambda o: o.source.stat().st_size)
    duration_s = TINY["duration_s"]
    fps = TINY["fps"]
    frame_count = TINY["frame_count"]
    width = TINY["width"]
    height = TINY["height"]
    codec = "h264"


class SatelliteImageFactory(DjangoModelFactory):
    class Meta:
        model = SatelliteImage

    class Params:
        content = factory.LazyAttributeSequence(lambda o, n: png_bytes(o.width, o.height, n))

    original_name = factory.Sequence(lambda n: f"map{n}.png")
    width = 200
    height = 100
    file = factory.LazyAttribute(lambda o: default_storage.save(f"satellite/{o.original_name}", ContentFile(o.content)))
    sha256 = factory.LazyAttribute(lambda o: hashlib.sha256(o.content).hexdigest())


class SceneFactory(DjangoModelFactory):
    """A scene with the tiny clip and one 200x100 satellite image; `annotators=[...]` assigns."""

    class Meta:
        model = Scene
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"scene {n}")
    video = factory.SubFactory(VideoFactory)

    @factory.post_generation
    def satellite_images(self, create: bool, extracted: list[SatelliteImage] | None, **kwargs: object) -> None:
        if create:
            self.satellite_images.add(*(extracted if extracted is not None else [SatelliteImageFactory()]))

    @factory.post_generation
    def annotators(self, create: bool, extracted: list | None, **kwargs: object) -> None:
        for user in extracted or []:
            Assignment.objects.get_or_create(scene=self, annotator=user)


class MediaJobFactory(DjangoModelFactory):
    class Meta:
        model = MediaJob

    scene = factory.SubFactory(SceneFactory, video__unprobed=True)
    kind = MediaJob.Kind.PROBE


class KeyframeFactory(DjangoModelFactory):
    class Meta:
        model = Keyframe

    video = factory.SubFactory(VideoFactory)
    index = factory.Sequence(lambda n: n)
    time_s = factory.LazyAttribute(lambda o: float(o.index))
    image = factory.LazyAttribute(
        lambda o: default_storage.save(
            f"keyframes/v{o.video.id}/{o.index:06d}.jpg", ContentFile(png_bytes(8, 8, o.index))
        )
    )


class KeyframePlacementFactory(DjangoModelFactory):
    """A keyframe placed on an image by `source` (matching by default) at `box` [x1, y1, x2, y2]: the
    frame fills the box north-up, through the homography that maps its pixels there."""

    class Meta:
        model = KeyframePlacement

    class Params:
        box = (0.0, 0.0, 100.0, 100.0)

    keyframe = factory.SubFactory(KeyframeFactory)
    satellite_image = factory.SubFactory(SatelliteImageFactory)
    source = KeyframePlacement.Source.MATCHING
    frame_width = 100
    frame_height = 100
    quad = factory.LazyAttribute(lambda o: [[o.box[i], o.box[j]] for i, j in ((0, 1), (2, 1), (2, 3), (0, 3))])
    homography = factory.LazyAttribute(
        lambda o: [
            [(o.box[2] - o.box[0]) / o.frame_width, 0.0, o.box[0]],
            [0.0, (o.box[3] - o.box[1]) / o.frame_height, o.box[1]],
            [0.0, 0.0, 1.0],
        ]
    )
    confidence = 0.9
    uncertainty_px = 2.0


class AssignmentFactory(DjangoModelFactory):
    class Meta:
        model = Assignment

    scene = factory.SubFactory(SceneFactory)
    annotator = factory.SubFactory(AnnotatorFactory)


# ---- annotation and review ---------------------------------------------------------------

SQUARE = {"type": "Polygon", "coordinates": [[[10, 10], [60, 10], [60, 40], [10, 40]]]}


class MarkFactory(DjangoModelFactory):
    """A visible polygon region on the scene's first image, by an annotator assigned to the scene."""

    class Meta:
        model = Mark
        skip_postgeneration_save = True

    scene = factory.SubFactory(SceneFactory)
    satellite_image = factory.LazyAttribute(lambda o: o.scene.satellite_images.order_by("id").first())
    author = factory.SubFactory(AnnotatorFactory)
    kind = Mark.Kind.POLYGON
    geometry = factory.LazyFunction(lambda: {**SQUARE, "coordinates": [list(SQUARE["coordinates"][0])]})
    label = "roundabout"
    time_start = 0.0
    time_end = 1.5
    facts = factory.LazyFunction(lambda: {"visible": True})

    @factory.post_generation
    def assigned(self, create: bool, extracted: bool | None, **kwargs: object) -> None:
        if create and extracted is not False:
            Assignment.objects.get_or_create(scene=self.scene, annotator=self.author)


class ItemFactory(DjangoModelFactory):
    """A Target Visibility item (answer "yes"); pass `marks=[...]` to link marks, `state=` to place it."""

    class Meta:
        model = Item
        skip_postgeneration_save = True

    scene = factory.SubFactory(SceneFactory)
    author = factory.SubFactory(AnnotatorFactory)
    task = Item.Task.TARGET_VISIBILITY
    question = factory.Sequence(lambda n: f"Is the region {n} visible in the drone video?")
    options = factory.LazyFunction(lambda: ["yes", "no"])
    answer = "yes"
    answer_format = Item.AnswerFormat.YES_NO
    template = "target_visibility.v2"
    seed = factory.Sequence(lambda n: 1000 + n)
    provenance = factory.LazyFunction(dict)
    state = Item.State.DRAFT

    @factory.post_generation
    def marks(self, create: bool, extracted: list[Mark] | None, **kwargs: object) -> None:
        """Link the marks as a compile would: their versions in the provenance, and their locks
        as the lifecycle keeps them for an item placed straight into a state."""
        if create and extracted:
            self.marks.set(extracted)
            self.provenance = {**self.provenance, "marks": [mark_snapshot(m) for m in extracted]}
            Item.objects.filter(id=self.id).update(provenance=self.provenance)
            lifecycle.marks_relock(mark_ids=[m.id for m in extracted])


class ReviewFactory(DjangoModelFactory):
    class Meta:
        model = Review

    item = factory.SubFactory(ItemFactory, state=Item.State.IN_REVIEW)
    reviewer = factory.SubFactory(ReviewerFactory)
    blind_answer = "yes"
    blind_correct = True
    decision = Review.Decision.PENDING


def reviewer_answered(item: Item, reviewer: Any) -> Review:
    """`reviewer` assigned to `item`'s current revision and past its blind step (answered), so
    they may see its marks and key."""
    from review.models import ReviewAssignment

    ReviewAssignment.objects.create(item=item, revision=item.revision, reviewer=reviewer)
    return ReviewFactory(item=item, reviewer=reviewer, revision=item.revision)
