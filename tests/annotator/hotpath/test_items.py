"""annotator.hotpath.items answers what `compiling.selectors.item_rows_for_user` answers, on the same
rows, for every case the list tells apart: whose items, which scene, open or not, the review tallies
of this round only, the phrasing read from the provenance, stale items with their snapshots, a model
view rendered, pending or missing, and every page with its count. Runs on both databases (make test
runs the suite on PostgreSQL and on SQLite)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.test import Client
from django.utils import timezone

from annotator.access.roles import ADMIN, ANNOTATOR, REVIEWER
from annotator.access.scopes import sees_own_work_only
from annotator.compiling import selectors
from annotator.compiling.serializers import ItemRowSerializer
from annotator.hotpath import items as hotpath_items
from annotator.models import Item, Mark, ModelView
from review.models import Review
from tests.factories import (
    AnnotatorFactory,
    ItemFactory,
    MarkFactory,
    ProjectFactory,
    ReviewerFactory,
    ReviewFactory,
    SatelliteImageFactory,
    SceneFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

ANNOTATIONS = ["approvals", "rejections", "phrasing_text", "phrasing_id", "phrasing_index", "stale_snapshots"]


def _view(item: Item) -> ModelView | None:
    return item.model_view if hasattr(item, "model_view") else None  # none: the accessor raises


def _values(item: Item) -> dict[str, Any]:
    """What a row holds: its fields (the provenance deferred), the annotations, its marks and its
    model view, each value with its type."""
    names = [f.attname for f in Item._meta.concrete_fields if f.name != "provenance"]
    view = _view(item)
    out = {n: getattr(item, n) for n in names + ANNOTATIONS}
    out["marks"] = [(m.id, m.version, m.label, m.satellite_image_id, m.get_deferred_fields()) for m in item.marks.all()]
    fields = ModelView._meta.concrete_fields
    out["model_view"] = None if view is None else {f.attname: getattr(view, f.attname) for f in fields}
    out["deferred"] = item.get_deferred_fields()
    return {k: (v, type(v)) for k, v in out.items()}


def _team() -> dict[str, Any]:
    """An annotator's items of every kind the list tells apart, on two scenes of their project, one
    on a scene of a project they left, and a second annotator's on the same scene."""
    annotator, other = AnnotatorFactory(), AnnotatorFactory()
    first, second = SatelliteImageFactory(), SatelliteImageFactory(width=640, height=480)
    scene = SceneFactory(annotators=[annotator, other], satellite_images=[first, second])
    near = SceneFactory(annotators=[annotator], project=scene.project)
    gone = SceneFactory(annotators=[annotator], project=ProjectFactory())  # not a member there
    marks = [MarkFactory(scene=scene, author=annotator, satellite_image=img, label=label)
             for img, label in ((second, "car"), (first, "café ☕"), (second, "van"))]  # fmt: skip
    phrased = {"phrasing_text": "Does the {target} show in the clip?", "phrasing_id": 7, "phrasing": 2}
    draft = ItemFactory(scene=scene, author=annotator, marks=[marks[2], marks[0]], provenance=dict(phrased))
    # in review, this round: two approvals, a rejection; a gold check and last round's do not count
    reviewed = ItemFactory(scene=scene, author=annotator, state=Item.State.IN_REVIEW, marks=[marks[1]], revision=2)
    for decision, revision, gold in (("approve", 2, False), ("approve", 2, False), ("reject", 2, False),
                                     ("approve", 2, True), ("reject", 1, False)):  # fmt: skip
        ReviewFactory(
            item=reviewed,
            reviewer=ReviewerFactory(),
            revision=revision,
            gold=gold,
            decision=decision,
            decided_at=timezone.now(),
        )
    # stale: a mark changed and another deleted since it was compiled
    stale = ItemFactory(scene=scene, author=annotator, marks=[marks[0], marks[1]], provenance={"phrasing_text": None})
    Mark.objects.filter(id=marks[0].id).update(version=5)
    snapshot = {"id": 987_000, "label": "bus", "version": 1, "satellite_image": first.id}
    Item.objects.filter(id=stale.id).update(stale=True, provenance={"marks": [*stale.provenance["marks"], snapshot]})
    # rejected and replaced (not open), and one whose every mark was deleted (its image from the snapshot)
    newer = ItemFactory(scene=scene, author=annotator, marks=[marks[2]])
    ItemFactory(scene=scene, author=annotator, state=Item.State.REJECTED, marks=[marks[2]], replaced_by=newer)
    orphan = ItemFactory(scene=scene, author=annotator, marks=[MarkFactory(scene=scene, author=annotator)])
    Mark.objects.filter(items=orphan).delete()
    Item.objects.filter(id=orphan.id).update(stale=True)
    # model views: rendered with option images, pending, failed; the rest have none
    ModelView.objects.create(item=draft, state="succeeded", image="modelviews/a.jpg", segment_start_s=1.5,
                             segment_end_s=4.0, option_images=[{"option": "A"}], video_note="cut")  # fmt: skip
    ModelView.objects.create(item=reviewed, state="pending")
    ModelView.objects.create(item=newer, state="failed", error="no frame at 3.0 s")
    ItemFactory(scene=near, author=annotator, state=Item.State.APPROVED)
    ItemFactory(scene=gone, author=annotator)
    ItemFactory(scene=scene, author=other)
    return {"annotator": annotator, "other": other, "scenes": [scene.id, near.id, gone.id, None, 987_654]}


def test_an_annotators_item_rows_are_the_orms_in_every_case(django_assert_num_queries: Any) -> None:
    team = _team()
    for user in (team["annotator"], team["other"]):
        for scene_id in team["scenes"]:
            for open_only in (False, True):
                orm = list(selectors.item_rows_for_user(user=user, scene_id=scene_id, open_only=open_only))
                own = hotpath_items.own_item_rows(user=user, scene_id=scene_id, open_only=open_only)
                assert own is not None
                # when a page is read by hand: the rows in one query, their marks in a second
                with django_assert_num_queries(2 if orm else 1):
                    fast = own[0:500]
                # then the rows, in id order, with every value and type, are the ORM's
                case = (user.username, scene_id, open_only)
                assert [i.id for i in fast] == sorted(i.id for i in orm), case
                assert [_values(i) for i in fast] == [_values(i) for i in orm], case
                # and so is every page, and the count
                assert own.count() == len(orm), case
                for limit in (1, 2, 3):
                    for offset in range(len(orm) + 2):
                        page = slice(offset, offset + limit)
                        assert [i.id for i in own[page]] == [i.id for i in orm[page]]
    # the cases are all there
    rows = hotpath_items.own_item_rows(user=team["annotator"], scene_id=None, open_only=False)[0:500]  # type: ignore[index]
    assert {(i.approvals, i.rejections) for i in rows} >= {(2, 1), (0, 0)}
    assert {i.stale for i in rows} == {True, False}
    assert {getattr(_view(i), "state", None) for i in rows} == {"succeeded", "pending", "failed", None}
    assert any(i.phrasing_index == 2 for i in rows) and any(i.stale_snapshots for i in rows)


def test_the_answer_is_the_orm_rows_serialized(django_assert_num_queries: Any) -> None:
    # given the annotator's items, signed in as the workspace is
    team = _team()
    client = Client()
    client.force_login(team["annotator"])
    for scene_id in team["scenes"][:4]:
        for query in ("", "&open=1"):
            url = f"/api/items/?limit=3{query}" + (f"&scene={scene_id}" if scene_id else "")
            orm = list(selectors.item_rows_for_user(user=team["annotator"], scene_id=scene_id, open_only=bool(query)))
            # when the list is read: the user, the page and its marks (and the count of a full page)
            with django_assert_num_queries(3 + (len(orm) >= 3) if orm else 2):
                answer = client.get(url)
            assert answer.status_code == 200
            expected = ItemRowSerializer(orm[:3], many=True).data
            assert answer.json()["results"] == json.loads(json.dumps(expected, cls=DjangoJSONEncoder)), url
            assert answer.json()["count"] == len(orm)


@pytest.mark.parametrize("roles", [[ANNOTATOR], [ANNOTATOR, REVIEWER], [ADMIN]])
def test_only_an_annotator_alone_takes_the_hand_written_rows(roles: list[str]) -> None:
    # given a user with these roles and an item of theirs
    user = UserFactory(roles=roles)
    scene = SceneFactory(annotators=[user])
    ItemFactory(scene=scene, author=user, marks=[MarkFactory(scene=scene, author=user)])
    ItemFactory(scene=scene)  # someone else's: an admin sees it
    rows = selectors.item_rows(user=user, scene_id=scene.id)
    # then an annotator alone gets the hand-written rows; the others the ORM's, by the same rules
    assert sees_own_work_only(user=user) == (roles == [ANNOTATOR])
    assert isinstance(rows, hotpath_items.OwnItemRows) == (roles == [ANNOTATOR])
    client = Client()
    client.force_login(user)
    answer = client.get(f"/api/items/?scene={scene.id}")
    assert answer.status_code == 200
    assert answer.json()["count"] == (2 if ADMIN in roles else 1)


def test_a_json_text_that_looks_like_a_number_stays_text() -> None:
    # given an item whose phrasing is the text "42" (the ORM on SQLite decodes it into 42)
    annotator = AnnotatorFactory()
    scene = SceneFactory(annotators=[annotator])
    ItemFactory(scene=scene, author=annotator, provenance={"phrasing_text": "42", "phrasing_id": 3})
    rows = hotpath_items.own_item_rows(user=annotator, scene_id=scene.id, open_only=False)
    assert rows is not None
    (row,) = rows[0:10]
    # then it is read as the text it is, the id as the number it is
    assert (row.phrasing_text, row.phrasing_id, row.phrasing_index) == ("42", 3, None)


def test_the_page_is_planned_by_the_authors_items_not_the_whole_table() -> None:
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's query plan; PostgreSQL plans by its statistics")
    annotator = AnnotatorFactory()
    scene = SceneFactory(annotators=[annotator])
    ItemFactory(scene=scene, author=annotator, marks=[MarkFactory(scene=scene, author=annotator)])
    own = hotpath_items.OwnItemRows(user=annotator, scene_id=scene.id, open_only=False)
    sql = hotpath_items._page_sql(connection.alias, *own._shape())
    params = [*hotpath_items.COUNTS.values(), *own._where_params(), 500, 0]
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN QUERY PLAN " + sql, params)
        plan = " | ".join(str(row[-1]) for row in cursor.fetchall())
    # the items by an index (the author's or the scene's), each one's reviews by the item index
    assert "SCAN annotator_item" not in plan, plan
    assert "review_review_item_id" in plan or "SEARCH review_review USING INDEX" in plan, plan
    assert Review.objects.count() == 0


def test_pages_are_in_id_order_whatever_order_the_database_would_choose() -> None:
    # given SQLite told to give the rows of a query without ORDER BY in reverse (a list paged by
    # LIMIT and OFFSET alone would then repeat and skip rows)
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's reverse_unordered_selects")
    annotator = AnnotatorFactory()
    scene = SceneFactory(annotators=[annotator])
    made = [ItemFactory(scene=scene, author=annotator).id for _ in range(4)]
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA reverse_unordered_selects = ON")
    try:
        own = hotpath_items.OwnItemRows(user=annotator, scene_id=scene.id, open_only=False)
        orm = selectors.item_rows_for_user(user=annotator, scene_id=scene.id)
        # then both read the pages in id order
        assert [i.id for k in range(4) for i in own[k : k + 1]] == made
        assert [i.id for k in range(4) for i in orm[k : k + 1]] == made
    finally:
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA reverse_unordered_selects = OFF")
