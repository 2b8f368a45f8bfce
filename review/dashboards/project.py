"""The figures of one project's dashboard: items per task against the planned mix, items per stage,
each annotator's and reviewer's throughput and active time, what is blocked, and where the scenes
are. Every figure is one grouped query (or two), whatever the number of items."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q, QuerySet, Sum

from annotator.compiling.catalog import TASK_DIMENSION
from annotator.models import Item, MediaJob, Project, SatelliteImage, Scene
from review.models import Release, ReleaseItem, Review

S = Item.State
STAGES = (
    ("draft", "Draft"),
    ("in_review", "In review"),
    ("in_adjudication", "In adjudication"),
    ("approved", "Approved"),
    ("released", "Released"),
    ("rejected", "Rejected, waiting for revision"),
)
BLOCKED_ROWS = 20  # each blocked list shows this many, with the full count


def project_items(project: Project) -> QuerySet[Item]:
    """The project's items that count: not withdrawn, not replaced by a newer compile."""
    return Item.objects.filter(scene__project=project, replaced_by__isnull=True).exclude(state=S.WITHDRAWN)


def items_per_task(project: Project) -> list[tuple[str, int, int]]:
    """(task name, compiled items, target) for each of the 12 tasks, in catalog order."""
    counts = dict(project_items(project).values("task").annotate(n=Count("id")).values_list("task", "n"))
    names = dict(Item.Task.choices)
    return [(names[t], counts.get(t, 0), int(project.task_mix.get(t, 0))) for t in TASK_DIMENSION]


def _released_ids(project: Project) -> QuerySet[Any]:
    frozen = Release.objects.filter(project=project, state=Release.State.FROZEN)
    return ReleaseItem.objects.filter(release__in=frozen).values("item_id")


def items_per_stage(project: Project) -> list[tuple[str, str, int]]:
    """(key, name, items) per stage; an approved item in a frozen release counts as released."""
    released = _released_ids(project)
    rows = project_items(project).aggregate(
        released=Count("id", filter=Q(state=S.APPROVED, id__in=released)),
        approved=Count("id", filter=Q(state=S.APPROVED) & ~Q(id__in=released)),
        **{key: Count("id", filter=Q(state=key)) for key in ("draft", "in_review", "in_adjudication", "rejected")},
    )
    return [(key, name, rows[key]) for key, name in STAGES]


@dataclass
class Worker:
    username: str
    done: int  # items compiled (annotators) or decisions made (reviewers)
    approved: int  # approved items (annotators) or approvals given (reviewers)
    minutes: float  # active minutes: the workspace's effort meter, or the timed blind answer and decision


def annotators(project: Project) -> list[Worker]:
    rows = (
        project_items(project)
        .values("author__username")
        .annotate(n=Count("id"), ok=Count("id", filter=Q(state=S.APPROVED)), seconds=Sum("active_seconds"))
        .order_by("author__username")
    )
    return [Worker(r["author__username"], r["n"], r["ok"], (r["seconds"] or 0) / 60) for r in rows]


def reviewers(project: Project) -> list[Worker]:
    rows = (
        Review.objects.filter(item__scene__project=project, decided_at__isnull=False, gold=False)
        .values("reviewer__username")
        .annotate(
            n=Count("id"),
            ok=Count("id", filter=Q(decision=Review.Decision.APPROVE)),
            answer=Sum("answer_seconds"),
            decide=Sum("decision_seconds"),
        )
        .order_by("reviewer__username")
    )
    return [
        Worker(r["reviewer__username"], r["n"], r["ok"], ((r["answer"] or 0) + (r["decide"] or 0)) / 60) for r in rows
    ]


def blocked(project: Project) -> dict[str, Any]:
    """Failed jobs (of the project's scenes and their images), stale items (their marks changed
    what they read: recompile), and rejected items waiting for their author's revision."""
    scenes = Scene.objects.filter(project=project).values("id")
    images = SatelliteImage.objects.filter(scenes__in=scenes).values("id")
    jobs = MediaJob.objects.filter(Q(scene__in=scenes) | Q(satellite_image__in=images), state=MediaJob.State.FAILED)
    stale = project_items(project).filter(stale=True, state__in=[S.DRAFT, S.REJECTED])
    rejected = project_items(project).filter(state=S.REJECTED)
    out: dict[str, Any] = {}
    for key, qs, related in (
        ("jobs", jobs.distinct().order_by("-id"), ("scene", "satellite_image")),
        ("stale", stale.order_by("-updated_at"), ("scene", "author")),
        ("rejected", rejected.order_by("updated_at"), ("scene", "author")),
    ):
        out[key] = {"count": qs.count(), "rows": list(qs.select_related(*related)[:BLOCKED_ROWS])}
    return out


def scene_points(project: Project) -> list[dict[str, Any]]:
    """The centre of each georeferenced scene (its first georeferenced image's centre) in WGS84."""
    from media_tools.geo import GeoReference  # pyproj loads on the dashboard, not with every page

    rows = (
        SatelliteImage.objects.filter(scenes__project=project, georef__isnull=False)
        .values_list("scenes__id", "scenes__name", "width", "height", "georef")
        .order_by("scenes__id", "id")
    )
    points: dict[int, dict[str, Any]] = {}
    for scene_id, name, width, height, georef in rows:
        if scene_id in points:
            continue
        lon, lat = GeoReference.from_dict(georef or {}).pixel_to_lonlat(width / 2, height / 2)
        points[scene_id] = {"id": scene_id, "name": name, "lat": float(lat), "lon": float(lon)}
    return list(points.values())
