"""Seed a database at the benchmark's size for bench/scale.py. Runs as a script inside the tree being
measured (its models, services and migrations): `python bench/scale_seed.py JSON-ARGS`, with the
tree first on PYTHONPATH and its database in the environment; prints one JSON line of what it made.

How the seed is made, and why it is the shape the services make:

1. One template scene goes through the platform's own services, as a team would make it: the demo
   clip imported with `scene_import` and its media jobs run (`process_scenes`); an annotator draws a
   working session of marks with bench/team/drawing.py (regions with facts, key locations, target
   instances, timed trajectories, through `mark_create` / `mark_update`) and compiles them with
   `items_compile_all`; one item per task is kept (12), each model view is drawn
   (`model_view_backfill`), most items are submitted (`item_submit`, which assigns two reviewers),
   answered blind and approved (`review_start`, `review_decide`), one stays in review, one a draft.
   More marks are drawn until the scene holds the benchmark's ~48 marks.
2. Every row those services wrote for the template scene (video, satellite image, keyframes, media
   jobs, telemetry, assignment, marks, items and their mark links, model views, review assignments,
   reviews, item revisions, audit events) is copied in bulk, per scene, with every foreign key and
   every mark id inside JSON (provenance snapshots and reads, occlusion facts) pointing at the new
   scene's rows; authors rotate over the annotators and reviewers over the reviewers. Copied rows
   are the services' rows with other ids, so constraints, states and provenance hold as they do after
   the services, without 17,903 compiles (hours on this machine). Files are shared: the copies name
   the template's stored video, image and model-view files.
3. The remaining satellite image records (43,273 in all) are bulk copies of the template image,
   spread over the scenes' image sets.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from collections import defaultdict
from io import StringIO
from pathlib import Path
from typing import Any

FULL = {"scenes": 1500, "images": 43_273, "items": 17_903, "annotators": 20, "reviewers": 9}
MARKS_PER_SCENE = 48  # 4 marks per item: 17,903 * 4 / 1,500
ITEMS_PER_SCENE = 12  # one per task
VIDEO = Path(__file__).resolve().parent.parent / "demo" / "kraklanda_highway_topdown_1080p_3fps.mp4"


def _users(n_annotators: int, n_reviewers: int) -> dict[str, list[Any]]:
    from tests.factories import AdminFactory, AnnotatorFactory, ReviewerFactory

    return {
        "admin": [AdminFactory(username="admin")],
        "annotators": [AnnotatorFactory(username=f"annotator{i}") for i in range(n_annotators)],
        "reviewers": [ReviewerFactory(username=f"reviewer{i}") for i in range(n_reviewers)],
    }


def _template(users: dict[str, list[Any]]) -> Any:
    """The template scene, made through the services (module docstring, step 1)."""
    from django.core.management import call_command
    from team.drawing import Drawer, draw_kit, update

    from annotator.compiling import lifecycle
    from annotator.compiling.batch import items_compile_all
    from annotator.compiling.modelview_queue import model_view_backfill
    from annotator.intake.services import SceneSpec, scene_import
    from annotator.models import Item, Scene
    from review.reviewing.services import review_decide, review_start

    admin, author = users["admin"][0], users["annotators"][0]
    spec = SceneSpec(name="Scene 0000", video=VIDEO, satellite_from_keyframe_s=0.0, annotators=[author.username])
    scene = scene_import(spec=spec, created_by=admin)
    call_command("process_scenes", str(scene.id), stdout=StringIO(), stderr=StringIO())
    scene = Scene.objects.select_related("video").get(id=scene.id)
    rng = random.Random(0)
    drawer = Drawer(scene=scene, user=author, rng=rng)
    draw_kit(drawer, regions=6, spots=5, tracks=3)
    items_compile_all(user=author, scene_id=scene.id, seed=1, active_seconds=600.0)
    while len(drawer.marks) < MARKS_PER_SCENE:
        kit = draw_kit(drawer, regions=3, spots=2, tracks=1)
        for region in kit["regions"]:  # counted by eye (Zone Counting reads it)
            update(region, {"facts": {**region.facts, "count": rng.randint(0, 7)}})
    items_compile_all(user=author, scene_id=scene.id, seed=2, active_seconds=600.0)
    keep = _pick(list(Item.objects.filter(scene=scene).order_by("id")))
    _items_delete(Item.objects.filter(scene=scene).exclude(id__in=[i.id for i in keep]))
    for item in keep:
        model_view_backfill(item_id=item.id, sync=True)
    for n, item in enumerate(keep):
        if n == 0:
            continue  # stays a draft
        item = lifecycle.item_submit(item=item, actor=author)
        if n == 1:
            continue  # stays in review
        for assignment in item.review_assignments.all():
            review = review_start(item=item, reviewer=assignment.reviewer, blind_answer=item.answer, answer_seconds=20)
            review_decide(review=review, reviewer=assignment.reviewer, decision="approve", reasons=[])
    return scene


def _pick(drafts: list[Any]) -> list[Any]:
    """ITEMS_PER_SCENE drafts: one of each task the marks made, then more of the tasks with the
    fewest so far (a task the drawn marks cannot make is left out, as a real scene leaves it)."""
    by_task: dict[str, list[Any]] = defaultdict(list)
    for item in drafts:
        by_task[item.task].append(item)
    keep: list[Any] = []
    while len(keep) < ITEMS_PER_SCENE and any(by_task.values()):
        for task in sorted(by_task, key=lambda t: sum(1 for i in keep if i.task == t)):
            if by_task[task] and len(keep) < ITEMS_PER_SCENE:
                keep.append(by_task[task].pop(0))
    return sorted(keep, key=lambda i: i.id)


# Rows copied per scene, in an order that creates what a row points at before the row.
CLONED = [
    ("annotator", "Video"),
    ("annotator", "SatelliteImage"),
    ("annotator", "Scene"),
    ("annotator", "Scene_satellite_images"),
    ("annotator", "Keyframe"),
    ("annotator", "TelemetryTrack"),
    ("annotator", "TelemetrySample"),
    ("annotator", "MediaJob"),
    ("annotator", "Assignment"),
    ("annotator", "Mark"),
    ("annotator", "Item"),
    ("annotator", "Item_marks"),
    ("annotator", "ModelView"),
    ("review", "ReviewAssignment"),
    ("review", "Review"),
    ("review", "ItemRevision"),
    ("review", "ItemEvent"),
]


def _template_rows(scene: Any) -> dict[str, list[Any]]:
    """Every row of CLONED that belongs to the template scene."""
    from django.apps import apps

    from annotator.models import Item, Mark

    rows: dict[str, list[Any]] = {}
    items = list(Item.objects.filter(scene=scene).values_list("id", flat=True))
    marks = list(Mark.objects.filter(scene=scene).values_list("id", flat=True))
    by = {"Video": {"id": scene.video_id}, "SatelliteImage": {"scenes": scene.id}, "Scene": {"id": scene.id},
          "Scene_satellite_images": {"scene_id": scene.id}, "Keyframe": {"video_id": scene.video_id},
          "TelemetryTrack": {"scene_id": scene.id}, "TelemetrySample": {"track__scene_id": scene.id},
          "MediaJob": {"scene_id": scene.id}, "Assignment": {"scene_id": scene.id}, "Mark": {"id__in": marks},
          "Item": {"id__in": items}, "Item_marks": {"item_id__in": items}, "ModelView": {"item_id__in": items},
          "ReviewAssignment": {"item_id__in": items}, "Review": {"item_id__in": items},
          "ItemRevision": {"item_id__in": items}, "ItemEvent": {"item_id__in": items}}  # fmt: skip
    for app, name in CLONED:
        try:
            model = apps.get_model(app, name)
        except LookupError:
            continue  # a model this tree does not have
        rows[name] = list(model.objects.filter(**by[name]).order_by("pk"))
    return rows


class Cloner:
    """Copies of the template rows for one scene at a time; `ids[model][old] -> new`."""

    def __init__(self, rows: dict[str, list[Any]], users: dict[str, list[Any]]) -> None:
        self.rows, self.users = rows, users
        self.annotator0 = users["annotators"][0].id
        self.reviewer_index = {u.id: i for i, u in enumerate(users["reviewers"])}

    def _user(self, old: int | None, k: int) -> int | None:
        if old == self.annotator0:
            return self.users["annotators"][k % len(self.users["annotators"])].id
        if old in self.reviewer_index:
            reviewers = self.users["reviewers"]
            return reviewers[(self.reviewer_index[old] + k) % len(reviewers)].id
        return old

    def clone(self, k: int) -> None:
        """Scene number k: every template row copied, keys remapped."""
        from django.apps import apps
        from django.conf import settings

        ids: dict[str, dict[int, int]] = defaultdict(dict)
        for app, name in CLONED:
            if name not in self.rows:
                continue
            model = apps.get_model(app, name)
            fresh = []
            for row in self.rows[name]:
                copy = model(**{f.attname: getattr(row, f.attname) for f in model._meta.concrete_fields})
                copy.pk = None
                for f in model._meta.concrete_fields:
                    if not f.is_relation:
                        continue
                    old = getattr(row, f.attname)
                    target = f.related_model._meta.object_name
                    if f.related_model._meta.label == settings.AUTH_USER_MODEL:
                        setattr(copy, f.attname, self._user(old, k))
                    elif target in ids and old in ids[target]:
                        setattr(copy, f.attname, ids[target][old])
                self._fix(name, copy, k, ids)
                fresh.append(copy)
            made = model.objects.bulk_create(fresh)
            for row, copy in zip(self.rows[name], made, strict=True):
                if copy.pk is None:  # a backend that does not return ids (none we run)
                    raise SystemExit(f"{name}: bulk_create returned no ids")
                ids[model._meta.object_name][row.pk] = copy.pk
            if name == "Mark":
                self._fix_mark_facts(made, ids["Mark"])

    def _fix(self, name: str, copy: Any, k: int, ids: dict[str, dict[int, int]]) -> None:
        """Unique values and the mark ids inside JSON."""
        if name == "Scene":
            copy.name = f"Scene {k:04d}"
        elif name in ("Video", "SatelliteImage"):
            copy.sha256 = f"{k:08x}{copy.sha256[8:]}"
        elif name == "Item":
            copy.provenance = _remap_provenance(copy.provenance, ids["Mark"])

    @staticmethod
    def _fix_mark_facts(made: list[Any], mark_ids: dict[int, int]) -> None:
        from annotator.models import Mark

        changed = []
        for mark in made:
            rel = (mark.facts or {}).get("occlusion")
            if rel:
                mark.facts = {
                    **mark.facts,
                    "occlusion": [{**o, "other": mark_ids.get(o["other"], o["other"])} for o in rel],
                }
                changed.append(mark)
        Mark.objects.bulk_update(changed, ["facts"])


def _remap_provenance(prov: dict[str, Any], mark_ids: dict[int, int]) -> dict[str, Any]:
    prov = dict(prov)
    if "marks" in prov:
        prov["marks"] = [{**m, "id": mark_ids.get(m["id"], m["id"])} for m in prov["marks"]]
    if "reads" in prov:
        prov["reads"] = {str(mark_ids.get(int(k), k)): v for k, v in prov["reads"].items()}
    return prov


def _extra_images(template_image: Any, n: int, n_scenes: int) -> None:
    """The satellite image records beyond one per scene, each shown by one scene (its image set)."""
    from annotator.models import SatelliteImage, Scene

    if n <= 0:
        return
    fields = [f for f in SatelliteImage._meta.concrete_fields if not f.primary_key]
    base = {f.attname: getattr(template_image, f.attname) for f in fields}
    made = SatelliteImage.objects.bulk_create(
        [SatelliteImage(**{**base, "sha256": f"e{i:015x}{template_image.sha256[16:]}"}) for i in range(n)],
        batch_size=2000,
    )
    scenes = list(Scene.objects.order_by("id").values_list("id", flat=True))[:n_scenes]
    link = Scene.satellite_images.through
    link.objects.bulk_create(
        [link(scene_id=scenes[i % len(scenes)], satelliteimage_id=im.id) for i, im in enumerate(made)],
        batch_size=5000,
    )


def seed(scale: float) -> dict[str, Any]:
    from django.db import transaction

    from annotator.models import Item, Mark, SatelliteImage, Scene

    n_scenes = max(2, round(FULL["scenes"] * scale))
    n_items = round(FULL["items"] * scale)
    users = _users(FULL["annotators"], FULL["reviewers"])
    began = time.perf_counter()
    template = _template(users)
    made_template = time.perf_counter() - began
    rows = _template_rows(template)
    cloner = Cloner(rows, users)
    for k in range(1, n_scenes):
        with transaction.atomic():
            cloner.clone(k)
    surplus = Item.objects.count() - n_items  # trim to the count: the last scenes' drafts, then newest
    if surplus > 0:
        extra = list(Item.objects.filter(state=Item.State.DRAFT).order_by("-id").values_list("id", flat=True)[:surplus])
        _items_delete(Item.objects.filter(id__in=extra))
    _extra_images(rows["SatelliteImage"][0], round(FULL["images"] * scale) - SatelliteImage.objects.count(), n_scenes)
    counts = {"scenes": Scene.objects.count(), "images": SatelliteImage.objects.count(), "marks": Mark.objects.count(),
              "items": Item.objects.count(),
              "items_by_state": dict(Item.objects.values_list("state").annotate(n=_count()).order_by("state")),
              "template_s": round(made_template, 1), "seed_s": round(time.perf_counter() - began, 1)}  # fmt: skip
    return counts


def _items_delete(items: Any) -> None:
    """Drafts the seed does not keep. Their audit events stay, as when a draft is deleted (the log is
    append-only)."""
    items.delete()


def _count() -> Any:
    from django.db.models import Count

    return Count("id")


def main() -> None:
    args = json.loads(sys.argv[1])
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    print(json.dumps(seed(float(args["scale"]))))


if __name__ == "__main__":
    main()
