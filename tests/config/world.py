"""A small world of seeded objects for tests that walk the whole API: users of every role, and for
each kind of object one that is the annotator's own, one of another annotator, and one that is
nobody's (a scene with no assignment, an item in review given to no reviewer); all in the default
project, of which every user is a member. A fourth, "foreign", lies in another project none of them
is a member of, though the annotator is assigned its scene and wrote its mark and item, and the
reviewer is assigned and answered that item: the project alone must hide it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone
from rest_framework.authtoken.models import Token

from annotator.access.roles import ADJUDICATOR
from annotator.compiling import lifecycle
from annotator.compiling.services import item_compile
from annotator.models import Item, MediaJob, TrackingJob
from review.models import Release, ReviewAssignment
from review.reviewing.services import review_start
from tests.factories import (
    AdminFactory,
    AnnotatorFactory,
    ItemFactory,
    KeyframeFactory,
    MarkFactory,
    MediaJobFactory,
    ProjectFactory,
    ReviewerFactory,
    SceneFactory,
    UserFactory,
    reviewer_answered,
)

ROLES = ("annotator", "reviewer", "adjudicator", "admin")
OWNERSHIP = ("own", "other", "unassigned")
FOREIGN = "foreign"
RELEASE = "9.0"


@dataclass
class World:
    users: dict[str, Any]
    tokens: dict[str, str]
    # kwarg name of a URL (scene_id, item_id ...) -> ownership -> value
    ids: dict[str, dict[str, Any]] = field(default_factory=dict)


def _submitted(mark: Any) -> Item:
    author = mark.author
    item = item_compile(user=author, task=Item.Task.TARGET_VISIBILITY, mark_ids=[mark.id])
    return lifecycle.item_submit(item=item, actor=author)


def build_world() -> World:
    annotator, other = AnnotatorFactory(), AnnotatorFactory()
    reviewer, second = ReviewerFactory(), ReviewerFactory()
    users = {
        "annotator": annotator,
        "other": other,
        "reviewer": reviewer,
        "adjudicator": UserFactory(roles=[ADJUDICATOR]),
        "admin": AdminFactory(),
    }
    scenes = {
        "own": SceneFactory(annotators=[annotator]),
        "other": SceneFactory(annotators=[other]),
        "unassigned": SceneFactory(),
    }
    marks = {
        "own": MarkFactory(scene=scenes["own"], author=annotator),
        "other": MarkFactory(scene=scenes["other"], author=other),
        "unassigned": MarkFactory(scene=scenes["unassigned"], author=other, assigned=False),
    }
    # The annotator's item and another's are submitted (from their marks), so the reviewers' queues
    # hold them and the reviewers see those scenes; the unassigned scene has no submitted item.
    items = {"own": _submitted(marks["own"]), "other": _submitted(marks["other"])}
    unassigned = ItemFactory(scene=scenes["other"], author=other, state=Item.State.IN_REVIEW)
    ReviewAssignment.objects.filter(item=unassigned).delete()
    items["unassigned"] = unassigned
    # The reviewer has answered another's item (its own review); the second reviewer too.
    reviews = {"own": review_start(item=items["other"], reviewer=reviewer, blind_answer="yes")}
    reviews["other"] = review_start(item=items["other"], reviewer=second, blind_answer="no")
    adjudicate = ItemFactory(scene=scenes["other"], author=other, state=Item.State.IN_ADJUDICATION)
    jobs = {k: MediaJobFactory(scene=s, kind=MediaJob.Kind.PROBE) for k, s in scenes.items()}
    keyframes = {k: KeyframeFactory(video=s.video, index=0) for k, s in scenes.items()}
    tracks = {k: _tracking_job(marks[k]) for k in scenes}
    release = Release.objects.create(
        version=RELEASE, created_by=users["admin"], state=Release.State.FROZEN, manifest={"files": []},
        root=f"releases/{RELEASE}", frozen_at=timezone.now(), items_file=f"releases/{RELEASE}/items.jsonl",
    )  # fmt: skip
    default_storage.save(f"releases/{RELEASE}/manifest.json", ContentFile(b'{"files": []}'))
    tokens = {name: Token.objects.create(user=user).key for name, user in users.items()}
    world = World(users=users, tokens=tokens)
    foreign = _foreign(users)
    first_image = {k: s.satellite_images.order_by("id").first().id for k, s in scenes.items()}
    world.ids = {
        "scene_id": {k: s.id for k, s in scenes.items()},
        "mark_id": {k: m.id for k, m in marks.items()},
        "item_id": {**{k: i.id for k, i in items.items()}},
        "adjudication_item_id": {"own": adjudicate.id, "other": adjudicate.id, "unassigned": adjudicate.id},
        "job_id": {k: j.id for k, j in jobs.items()},
        "track_id": {k: t.id for k, t in tracks.items()},
        "image_id": first_image,
        "video_id": {k: kf.video_id for k, kf in keyframes.items()},
        "index": dict.fromkeys((*OWNERSHIP, FOREIGN), 0),
        "version": dict.fromkeys(OWNERSHIP, release.version),
        "review_id": {k: r.id for k, r in reviews.items()},
        "project_id": dict.fromkeys(OWNERSHIP, scenes["own"].project_id),
    }
    for name, value in foreign.items():
        world.ids[name][FOREIGN] = value
    return world


def _tracking_job(mark: Any) -> TrackingJob:
    """A finished tracking job by the mark's author on its scene (a cancel answers 409, allowed)."""
    return TrackingJob.objects.create(
        scene=mark.scene, satellite_image=mark.satellite_image, author=mark.author, label=mark.label,
        time_s=0.0, box=[10, 10, 16, 16], duration_s=1.0, state=TrackingJob.State.SUCCEEDED, mark=mark,
    )  # fmt: skip


def _foreign(users: dict[str, Any]) -> dict[str, Any]:
    """Objects of another project (its own annotator and reviewer are its members), reachable by
    the world's users in every way but membership."""
    annotator, reviewer = users["annotator"], users["reviewer"]
    outsider = AnnotatorFactory()
    project = ProjectFactory(members={"annotator": [outsider], "reviewer": [ReviewerFactory()]})
    scene = SceneFactory(project=project, annotators=[annotator, outsider])
    mark = MarkFactory(scene=scene, author=annotator)
    item = ItemFactory(scene=scene, author=annotator, state=Item.State.IN_REVIEW, marks=[mark])
    review = reviewer_answered(item, reviewer)
    adjudicate = ItemFactory(scene=scene, author=outsider, state=Item.State.IN_ADJUDICATION)
    job = MediaJobFactory(scene=scene, kind=MediaJob.Kind.PROBE)
    keyframe = KeyframeFactory(video=scene.video, index=0)
    version = "9.1"
    Release.objects.create(
        version=version, project=project, created_by=users["admin"], state=Release.State.FROZEN,
        manifest={"files": []}, root=f"releases/{version}", frozen_at=timezone.now(),
        items_file=f"releases/{version}/items.jsonl",
    )  # fmt: skip
    default_storage.save(f"releases/{version}/manifest.json", ContentFile(b'{"files": []}'))
    return {
        "scene_id": scene.id,
        "mark_id": mark.id,
        "item_id": item.id,
        "adjudication_item_id": adjudicate.id,
        "job_id": job.id,
        "track_id": _tracking_job(mark).id,
        "image_id": scene.satellite_images.get().id,
        "video_id": keyframe.video_id,
        "version": version,
        "review_id": review.id,
        "project_id": project.id,
    }
