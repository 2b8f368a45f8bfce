"""Reads of compiled items, scoped to the user asking (annotator.access.scopes)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Case, Count, F, JSONField, Prefetch, Q, QuerySet, Value, When
from django.db.models.fields.json import KeyTransform
from django.http import Http404

from annotator.access.scopes import in_member_projects, items_visible, sees_own_work_only
from annotator.compiling.audit import Row, row_from_record
from annotator.compiling.lifecycle import OPEN_STATES
from annotator.hotpath import items as hotpath_items
from annotator.models import Item, Mark, ModelView

_this_round = Q(reviews__revision=F("revision"), reviews__gold=False)


def items_for_user(*, user: Any, scene_id: int | None = None, open_only: bool = False) -> QuerySet[Item]:
    """Admins: all items; annotators: their own, with their review tallies. `open_only`: the drafts
    and rejected items still the author's to fix (not replaced by a recompiled one)."""
    qs = (
        Item.objects.select_related("scene", "model_view")
        .prefetch_related("marks")
        .annotate(
            # the current revision's own reviews (not earlier rounds, not gold checks)
            approvals=Count("reviews", filter=_this_round & Q(reviews__decision="approve")),
            rejections=Count("reviews", filter=_this_round & Q(reviews__decision="reject")),
        )
    )
    if scene_id is not None:
        qs = qs.filter(scene_id=scene_id)
    if open_only:
        qs = qs.filter(state__in=OPEN_STATES, replaced_by__isnull=True)
    return items_visible(user=user, qs=qs).order_by("id")  # see item_rows_for_user


def item_rows_for_user(*, user: Any, scene_id: int | None = None, open_only: bool = False) -> QuerySet[Item]:
    """The items list's rows (ItemRowSerializer): as `items_for_user`, without the heavy part. An
    item's provenance holds a snapshot of every mark it was built from, geometry included, and a
    scene's big polygon copied into a dozen items made the list megabytes long. A row reads the
    phrasing out of it in SQL, its marks' ids, versions, labels and image, and the snapshots only of
    stale items (to say what changed); the item's own page has the whole provenance."""
    qs = (
        Item.objects.select_related("model_view")
        .defer("provenance")
        .prefetch_related(Prefetch("marks", queryset=Mark.objects.only("id", "version", "label", "satellite_image_id")))
        .annotate(
            approvals=Count("reviews", filter=_this_round & Q(reviews__decision="approve")),
            rejections=Count("reviews", filter=_this_round & Q(reviews__decision="reject")),
            phrasing_text=KeyTransform("phrasing_text", "provenance"),
            phrasing_id=KeyTransform("phrasing_id", "provenance"),
            phrasing_index=KeyTransform("phrasing", "provenance"),
            stale_snapshots=Case(
                When(stale=True, then=KeyTransform("marks", "provenance")),
                default=Value(None),
                output_field=JSONField(),
            ),
        )
    )
    if scene_id is not None:
        qs = qs.filter(scene_id=scene_id)
    if open_only:
        qs = qs.filter(state__in=OPEN_STATES, replaced_by__isnull=True)
    # In id order, as pages need: a model's Meta.ordering is not applied to a query that groups
    # (the review Counts), and without ORDER BY neither database promises any order.
    return items_visible(user=user, qs=qs).order_by("id")


def item_rows(
    *, user: Any, scene_id: int | None = None, open_only: bool = False
) -> QuerySet[Item] | hotpath_items.OwnItemRows:
    """What `item_rows_for_user` answers; an annotator's own rows, the workspace's items panel,
    come through annotator.hotpath.items (the same rows: building the ORM's two querysets was 44 %
    of that read)."""
    if sees_own_work_only(user=user):
        own = hotpath_items.own_item_rows(user=user, scene_id=scene_id, open_only=open_only)
        if own is not None:
            return own
    return item_rows_for_user(user=user, scene_id=scene_id, open_only=open_only)


def item_get(*, user: Any, item_id: int) -> Item:
    item = items_for_user(user=user).filter(id=item_id).first()
    if item is None:
        raise Http404("no such item")
    return item


def audit_rows(*, states: list[str], scene_ids: list[int] | None = None, user: Any = None) -> list[Row]:
    """Every item in these states (not replaced by a recompiled one) as the audit reads it; two
    queries whatever the count. For admins' pages (of the `user`'s projects) and commands (every
    project when no user is given)."""
    qs = Item.objects.filter(state__in=states, replaced_by__isnull=True)
    if user is not None:
        qs = in_member_projects(user=user, qs=qs, path="scene__project")
    if scene_ids:
        qs = qs.filter(scene_id__in=scene_ids)
    fields = ("id", "task", "scene_id", "question", "options", "answer", "answer_format")
    recorded = ("marks", "phrasing_text", "polarity")
    values = qs.order_by("id").values_list(*fields, *(f"provenance__{key}" for key in recorded))
    marks: dict[int, set[int]] = defaultdict(set)
    for item_id, mark_id in Item.marks.through.objects.filter(item__in=qs).values_list("item_id", "mark_id"):
        marks[item_id].add(mark_id)
    rows = []
    for v in values:
        record = dict(zip(fields, v[: len(fields)], strict=True))
        record["provenance"] = dict(zip(recorded, v[len(fields) :], strict=True))
        rows.append(row_from_record(record, mark_ids=sorted(marks[v[0]])))
    return rows


def effort_pairs(*, scene_ids: list[int] | None = None, user: Any = None) -> list[tuple[str, float]]:
    """(task, active seconds) of every item with time recorded, replaced ones included: the time was
    spent. Of the `user`'s projects when given."""
    qs = Item.objects.filter(active_seconds__gt=0)
    if user is not None:
        qs = in_member_projects(user=user, qs=qs, path="scene__project")
    if scene_ids:
        qs = qs.filter(scene_id__in=scene_ids)
    return [(task, seconds) for task, seconds in qs.values_list("task", "active_seconds")]


def items_without_ready_view(
    *, scene_ids: list[int] | None = None, states: list[str] | None = None, failed: bool = False, pending: bool = False
) -> QuerySet[Item]:
    """Items whose model view was never created (compiled before model views existed), and with
    `failed` / `pending` those whose view failed / still waits, oldest first, their view joined.
    For admins' commands: not scoped to a user."""
    wanted = Q(model_view__isnull=True)
    if failed:
        wanted |= Q(model_view__state=ModelView.State.FAILED)
    if pending:
        wanted |= Q(model_view__state=ModelView.State.PENDING)
    qs = Item.objects.filter(wanted).select_related("model_view")
    if scene_ids:
        qs = qs.filter(scene_id__in=scene_ids)
    if states:
        qs = qs.filter(state__in=states)
    return qs.order_by("id")
