"""The Items panel's API: which tasks the selected marks can make, previews, compiling all a scene's
marks allow, stale items listed with their reason and compiled again in one request, active time."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from annotator.compiling import lifecycle
from annotator.compiling.services import item_compile
from annotator.marking.services import mark_delete, mark_update
from annotator.models import Item, Mark, ModelView
from tests.annotator.compiling.test_compile_each_task import CASES, Marks, _point, _poly

pytestmark = pytest.mark.django_db
T = Item.Task


def _check(client: Any, ids: list[int]) -> dict[str, dict[str, Any]]:
    response = client.post("/api/items/check/", {"mark_ids": ids}, format="json")
    assert response.status_code == 200, response.content
    return {t["task"]: t for t in response.json()["tasks"]}


def test_check_says_which_tasks_the_selected_marks_make_and_what_the_others_miss(annotator: Any, api: Any) -> None:
    # given a region with an interval, seen in the video
    m = Marks(annotator)
    region = m("polygon", _poly(10, 10, 40, 40), "pier", time_start=0.5, time_end=1.5, facts={"visible": True})
    # when the panel asks about it alone
    tasks = _check(api(annotator), [region.id])
    # then the tasks one region makes are ready, in the catalog's order, and the others say what they need
    assert list(tasks) == list(T.values)
    ready = {t for t, v in tasks.items() if v["ok"]}
    assert ready == {T.TARGET_VISIBILITY, T.SCENE_ASSOCIATION, T.TEMPORAL_GROUNDING}
    assert "count_class" in tasks[T.ZONE_COUNTING]["missing"][0]["message"]
    assert "needs the target" in tasks[T.RELATIVE_DIRECTION]["missing"][0]["message"]
    assert tasks[T.SPATIOTEMPORAL_ORDERING]["needs"] == ["three regions (polygons) seen in the video"]


def test_an_ellipse_is_a_target_never_the_region(annotator: Any, api: Any) -> None:
    # given two ellipses (target instances: a car, another car) and a pond drawn as a polygon
    m = Marks(annotator)
    car = m("ellipse", {"type": "Ellipse", "center": [100, 10], "radii": [4, 3], "rotation": 0}, "car", time_end=None)
    van = m("ellipse", {"type": "Ellipse", "center": [100, 60], "radii": [6, 4], "rotation": 0}, "car", time_end=None)
    pond = m("polygon", _poly(85, 50, 115, 70), "pond")
    client = api(annotator)
    # then two ellipses make no direction question ("from the car 2 to the car 1")
    refused = _check(client, [car.id, van.id])[T.RELATIVE_DIRECTION]
    assert not refused["ok"]
    assert refused["missing"][0]["message"].endswith("; got 2 ellipses")
    # and with the polygon, the ellipse is the target whichever is picked first
    answers = [
        client.post("/api/items/preview/", {"task": T.RELATIVE_DIRECTION, "mark_ids": ids}, format="json").json()[
            "answer"
        ]
        for ids in ([car.id, pond.id], [pond.id, car.id])
    ]
    assert answers == ["north", "north"]


def test_check_gives_each_task_its_facts_as_typed_fields_bound_to_the_marks(annotator: Any, api: Any) -> None:
    # given a point with no facts yet
    m = Marks(annotator)
    spot = m("point", _point(50, 50), "van", time_start=1.0)
    client = api(annotator)
    tasks = _check(client, [spot.id])
    # then Event Geo-localization asks for the event, on that mark, as text, and says it is missing
    [event] = tasks[T.EVENT_GEOLOCALIZATION]["fields"]
    assert (event["mark"], event["key"], event["kind"], event["name"]) == (spot.id, "event", "text", "van")
    assert event["required"] and event["value"] is None and "set the fact 'event'" in event["problem"]
    # and tasks these marks cannot fill have no fields (the check says what to pick instead)
    assert tasks[T.OCCLUSION_ATTRIBUTION]["fields"] == []
    # when the field's value is saved on its mark, as the panel does
    r = client.patch(f"/api/marks/{spot.id}/", {"version": 1, "facts": {"event": "the van stops"}}, format="json")
    assert r.status_code == 200
    # then the task is ready and the field shows the value
    task = _check(client, [spot.id])[T.EVENT_GEOLOCALIZATION]
    assert task["ok"] and task["fields"][0]["value"] == "the van stops" and task["fields"][0]["problem"] == ""


def test_occlusion_asks_one_relation_for_the_pair_worded_with_both_names(annotator: Any, api: Any) -> None:
    # given two regions, the second already stating the relation from its side
    m = Marks(annotator)
    roof = m("polygon", _poly(10, 10, 40, 40), "roof")
    tree = m("polygon", _poly(60, 10, 90, 40), "tree", facts={"occlusion": [{"other": roof.id, "relation": "hides"}]})
    [field] = _check(api(annotator), [roof.id, tree.id])[T.OCCLUSION_ATTRIBUTION]["fields"]
    # then the field edits that region's fact, about the other one, with the choices in words
    assert (field["mark"], field["other"], field["kind"], field["value"]) == (tree.id, roof.id, "relation", "hides")
    assert [c["label"] for c in field["choices"]] == [
        "the tree hides part of the roof",
        "the roof hides part of the tree",
        "each hides part of the other at some point",
        "neither hides the other",
    ]
    # and with neither stating it, the first region carries it and it is missing
    m2 = Marks(annotator)
    a, b = m2("polygon", _poly(10, 10, 40, 40), "roof"), m2("polygon", _poly(60, 10, 90, 40), "tree")
    [field] = _check(api(annotator), [a.id, b.id])[T.OCCLUSION_ATTRIBUTION]["fields"]
    assert (field["mark"], field["other"], field["value"]) == (a.id, b.id, None)
    assert "set the fact 'occlusion'" in field["problem"]


def test_check_refuses_marks_that_are_not_yours(annotator: Any, other_annotator: Any, api: Any) -> None:
    region = Marks(annotator)("polygon", _poly(10, 10, 40, 40), "pier")
    # another's mark answers exactly as a missing one: whether an id exists does not leak
    theirs = api(other_annotator).post("/api/items/check/", {"mark_ids": [region.id]}, format="json")
    missing = api(other_annotator).post("/api/items/check/", {"mark_ids": [10**9]}, format="json")
    assert theirs.status_code == missing.status_code == 400
    assert theirs.json() == missing.json()


def test_a_preview_shows_the_item_and_its_model_view_and_saves_nothing(annotator: Any, api: Any) -> None:
    # given the marks of a Trajectory Matching item
    marks, _ = CASES[T.TRAJECTORY_MATCHING][0](Marks(annotator))
    body = {"task": T.TRAJECTORY_MATCHING, "mark_ids": [m.id for m in marks], "seed": 4}
    # when previewed
    response = api(annotator).post("/api/items/preview/", body, format="json")
    # then it is the item compiling would make, with the drawn view and option images, and nothing is stored
    assert response.status_code == 200, response.content
    preview = response.json()
    item = item_compile(user=annotator, task=T.TRAJECTORY_MATCHING, mark_ids=body["mark_ids"], seed=4)
    assert (preview["question"], preview["options"], preview["answer"]) == (item.question, item.options, item.answer)
    view = preview["model_view"]
    assert view["image"].startswith("data:image/jpeg;base64,") and view["segment_s"] == [0.0, 2.0]
    assert [o["option"] for o in view["options"]] == ["A", "B", "C", "D"]
    assert Item.objects.count() == 1 and ModelView.objects.count() == 1


def test_a_preview_that_cannot_be_made_says_why(annotator: Any, api: Any) -> None:
    region = Marks(annotator)("polygon", _poly(10, 10, 40, 40), "pier", facts={})
    response = api(annotator).post(
        "/api/items/preview/", {"task": T.TARGET_VISIBILITY, "mark_ids": [region.id]}, format="json"
    )
    assert response.status_code == 400 and "visible" in response.json()["facts.visible"][0]


def test_stale_items_are_listed_with_their_reason_and_compiled_again_in_one_request(annotator: Any, api: Any) -> None:
    # given a draft and a rejected item built from a region, which is then reshaped
    m = Marks(annotator)
    region = m("polygon", _poly(10, 10, 40, 40), "pier", facts={"visible": True})
    draft = item_compile(user=annotator, task=T.TARGET_VISIBILITY, mark_ids=[region.id])
    rejected = item_compile(user=annotator, task=T.TEMPORAL_GROUNDING, mark_ids=[region.id])
    lifecycle.item_submit(item=rejected, actor=annotator)
    lifecycle.item_reject(item=rejected, actor=None, reason="a reviewer rejected it")
    region.refresh_from_db()
    mark_update(mark=region, version=region.version, changes={"geometry": _poly(10, 10, 50, 50)})
    client = api(annotator)
    # then both are listed as open and stale, saying which mark changed
    listed = {it["id"]: it for it in client.get(f"/api/items/?scene={m.scene.id}&open=1").json()["results"]}
    assert set(listed) == {draft.id, rejected.id}
    assert listed[draft.id]["stale"] and listed[draft.id]["stale_reason"] == (
        f"mark #{region.id} (pier) changed (version 1 → 2)"
    )
    # when each is compiled again
    fresh = client.post(f"/api/items/{draft.id}/recompile/", {}, format="json")
    again = client.post(f"/api/items/{rejected.id}/recompile/", {}, format="json")
    # then fresh drafts of the same tasks from the region as it is now replace them
    assert fresh.status_code == again.status_code == 201
    assert (fresh.json()["task"], fresh.json()["stale"], fresh.json()["mark_ids"]) == (
        T.TARGET_VISIBILITY,
        False,
        [region.id],
    )
    new = Item.objects.get(id=fresh.json()["id"])
    assert new.provenance["marks"][0]["version"] == 2 and new.provenance["recompiled_from"] == draft.id
    assert not Item.objects.filter(id=draft.id).exists()  # a stale draft could never go on
    assert Item.objects.get(id=rejected.id).replaced_by_id == again.json()["id"]  # reviews stay as history
    open_now = {it["id"] for it in client.get(f"/api/items/?scene={m.scene.id}&open=1").json()["results"]}
    assert open_now == {fresh.json()["id"], again.json()["id"]}
    # and a replaced item is not compiled twice
    assert client.post(f"/api/items/{rejected.id}/recompile/", {}, format="json").status_code == 409


def test_recompiling_refuses_items_in_review_deleted_marks_and_strangers(
    annotator: Any, other_annotator: Any, api: Any
) -> None:
    m = Marks(annotator)
    region = m("polygon", _poly(10, 10, 40, 40), "pier", facts={"visible": True})
    spare = m("polygon", _poly(50, 10, 80, 40), "lake", facts={"visible": True})
    in_review = item_compile(user=annotator, task=T.TARGET_VISIBILITY, mark_ids=[region.id])
    lifecycle.item_submit(item=in_review, actor=annotator)
    rejected = item_compile(user=annotator, task=T.TARGET_VISIBILITY, mark_ids=[spare.id])
    lifecycle.item_submit(item=rejected, actor=annotator)
    lifecycle.item_reject(item=rejected, actor=None, reason="a reviewer rejected it")
    spare.refresh_from_db()
    mark_delete(mark=spare, version=spare.version)
    client = api(annotator)
    assert client.post(f"/api/items/{in_review.id}/recompile/", {}, format="json").status_code == 409
    response = client.post(f"/api/items/{rejected.id}/recompile/", {}, format="json")
    assert response.status_code == 400 and "was deleted" in response.json()["mark_ids"][0]
    reason = client.get(f"/api/items/{rejected.id}/").json()["stale_reason"]
    assert reason == f"mark #{spare.id} (lake) was deleted"
    assert api(other_annotator).post(f"/api/items/{rejected.id}/recompile/", {}, format="json").status_code == 404


def test_compile_all_makes_every_item_the_marks_allow_once_with_balanced_keys(annotator: Any, api: Any) -> None:
    # given six regions first seen 1.2 s apart, every other one never seen, and a car next to them
    m = Marks(annotator)
    for k in range(6):
        m("polygon", _poly(10 + 30 * k, 10, 30 + 30 * k, 30), f"building {k}", time_start=0.5 + 1.2 * k,
          time_end=1.0 + 1.2 * k, facts={"visible": k % 2 == 0})  # fmt: skip
    m("point", _point(100, 80), "car", time_start=1.0, time_end=None)
    client = api(annotator)
    # when all items are compiled, with a minute of work to share
    response = client.post(f"/api/scenes/{m.scene.id}/items/compile-all/", {"active_seconds": 60}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    made = Counter(it["task"] for it in body["items"])
    tally = {t["task"]: t for t in body["tasks"]}
    # then each task has one item per way the marks fill it; regions never seen make no segment,
    # first sighting or ordering, and the tally says why
    assert made[T.TARGET_VISIBILITY] == made[T.RELATIVE_DIRECTION] == 6
    assert made[T.SCENE_ASSOCIATION] == made[T.TEMPORAL_GROUNDING] == 3
    assert made[T.SPATIOTEMPORAL_ORDERING] == 1 and tally[T.SPATIOTEMPORAL_ORDERING]["refused"] == 19
    assert "never seen" in tally[T.TEMPORAL_GROUNDING]["refusals"][0]["reason"]
    assert "set the fact 'interaction' on the car" in tally[T.REGION_INTERACTION]["refusals"][0]["reason"]
    # yes/no questions asked half each way whatever the facts (the keys follow the facts; the
    # release balances them), multiple-choice keys spread over the positions
    items = Item.objects.filter(id__in=[it["id"] for it in body["items"]])
    seen = [it for it in items if it.task == T.TARGET_VISIBILITY]
    assert Counter(it.provenance["polarity"] for it in seen) == Counter({"positive": 3, "negative": 3})
    for it in seen:
        assert (it.answer == "yes") == (it.provenance["visible"] == (it.provenance["polarity"] == "positive"))
    for task in (T.RELATIVE_DIRECTION, T.SCENE_ASSOCIATION):
        positions = Counter(it.provenance["key_position"] for it in items if it.task == task)
        assert max(positions.values()) == 1, task
    assert sum(it.active_seconds for it in items) == pytest.approx(60, abs=0.1 * len(items))
    # and compiling all again makes nothing new
    second = client.post(f"/api/scenes/{m.scene.id}/items/compile-all/", {}, format="json").json()
    assert second["items"] == [] and {t["task"]: t["existing"] for t in second["tasks"]}[T.TARGET_VISIBILITY] == 6


def test_compile_all_takes_polygons_as_regions_and_counts_only_instances_of_the_class(annotator: Any, api: Any) -> None:
    # given a parking lot (polygon) stated to hold 2 cars at 4 s, two car ellipses in it then, one
    # car outside it, trees (points) in and out of it, and a lake (polygon)
    m = Marks(annotator)
    lot = m("polygon", _poly(10, 10, 90, 60), "parking lot", time_start=4.0, time_end=None,
            facts={"count_class": "car", "count": 2, "visible": True})  # fmt: skip
    lake = m("polygon", _poly(120, 10, 180, 50), "lake", time_start=1.0, time_end=None, facts={"visible": True})

    def car(x: float, y: float) -> Mark:
        return m("ellipse", {"type": "Ellipse", "center": [x, y], "radii": [4, 3], "rotation": 0}, "car",
                 time_start=4.0, time_end=None)  # fmt: skip

    inside, also_inside, outside = car(30, 30), car(60, 40), car(150, 80)
    m("point", _point(20, 20), "tree", time_start=4.0, time_end=None)
    m("point", _point(170, 80), "tree", time_start=4.0, time_end=None)
    ellipses = {inside.id, also_inside.id, outside.id}
    # when all items are compiled
    response = api(annotator).post(f"/api/scenes/{m.scene.id}/items/compile-all/", {}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    items = Item.objects.filter(id__in=[it["id"] for it in body["items"]]).prefetch_related("marks")
    # then the region tasks are made from the polygons only, never from an ellipse
    region_only = (T.TARGET_VISIBILITY, T.TEMPORAL_GROUNDING, T.SPATIOTEMPORAL_ORDERING, T.OCCLUSION_ATTRIBUTION,
                   T.SCENE_ASSOCIATION)  # fmt: skip
    for item in items:
        kinds = [mk.kind for mk in item.marks.all()]
        if item.task in region_only:
            assert set(kinds) == {"polygon"}, (item.task, kinds)
        elif item.task != T.ZONE_COUNTING:
            assert kinds.count("polygon") <= 1 and kinds.count("ellipse") <= 1, (item.task, kinds)
        assert "car 1" not in item.question and "car 2" not in item.question, item.question
    assert Counter(it.task for it in items)[T.TARGET_VISIBILITY] == 2
    # and the lot counts the two cars inside it, not the car outside, the trees or the lake
    [count] = [it for it in items if it.task == T.ZONE_COUNTING]
    assert count.answer == "2"
    assert {mk.id for mk in count.marks.all()} == {lot.id, inside.id, also_inside.id}
    assert sorted(count.provenance["counted"]) == sorted([inside.id, also_inside.id])
    # and every refused combination is listed with its marks, named, and the template's reason
    tally = {t["task"]: t for t in body["tasks"]}
    assert tally[T.ZONE_COUNTING]["refused"] == 1  # the lake: nothing to count there
    for t in body["tasks"]:
        assert len(t["refusals"]) == t["refused"]
        for refusal in t["refusals"]:
            assert refusal["reason"] and refusal["marks"] and all(mk["name"] for mk in refusal["marks"])
    [lake_count] = tally[T.ZONE_COUNTING]["refusals"]
    assert lake_count["marks"] == [{"id": lake.id, "kind": "polygon", "name": "lake"}]
    assert lake_count["field"] == "facts.count_class"
    interaction = tally[T.REGION_INTERACTION]["refusals"]
    assert {"id": outside.id, "kind": "ellipse", "name": "car"} in [mk for r in interaction for mk in r["marks"]]
    assert all(
        "set the fact 'interaction' on the car" in r["reason"] for r in interaction if r["marks"][0]["id"] in ellipses
    )
    assert lake.id not in {mk.id for it in items if it.task == T.ZONE_COUNTING for mk in it.marks.all()}


def test_a_region_relating_to_two_others_makes_one_occlusion_item_per_pair(annotator: Any, api: Any) -> None:
    # given a tree stating that it hides the roof and that it and the wall do not occlude each other
    m = Marks(annotator)
    roof = m("polygon", _poly(10, 10, 40, 40), "roof")
    wall = m("polygon", _poly(110, 10, 140, 40), "wall")
    relations = [{"other": roof.id, "relation": "hides"}, {"other": wall.id, "relation": "none"}]
    tree = m("polygon", _poly(60, 10, 90, 40), "tree", facts={"occlusion": relations})
    # when all items are compiled
    body = api(annotator).post(f"/api/scenes/{m.scene.id}/items/compile-all/", {}, format="json").json()
    made = Item.objects.filter(id__in=[it["id"] for it in body["items"]], task=T.OCCLUSION_ATTRIBUTION)
    # then each pair the tree states a relation for makes one item, keyed by that pair's relation
    by_pair = {frozenset(mk.id for mk in it.marks.all()): it for it in made}
    assert set(by_pair) == {frozenset({tree.id, roof.id}), frozenset({tree.id, wall.id})}
    hiding = by_pair[frozenset({tree.id, roof.id})]
    tree_first = hiding.provenance["first_region"] == tree.id
    assert hiding.provenance["relation"] == ("hides" if tree_first else "hidden_by")
    assert hiding.answer == "the tree hides part of the roof"  # whichever region the question names first
    assert hiding.answer in hiding.options
    assert by_pair[frozenset({tree.id, wall.id})].answer == "neither hides the other"


def test_active_time_comes_with_compile_submit_and_its_own_report(annotator: Any, api: Any) -> None:
    region = Marks(annotator)("polygon", _poly(10, 10, 40, 40), "pier", facts={"visible": True})
    client = api(annotator)
    body = {"task": T.TARGET_VISIBILITY, "mark_ids": [region.id], "active_seconds": 42.25}
    item = client.post("/api/items/", body, format="json").json()
    assert item["active_seconds"] == 42.2 or item["active_seconds"] == 42.3
    after = client.post(f"/api/items/{item['id']}/effort/", {"seconds": 10}, format="json").json()
    assert after["active_seconds"] == pytest.approx(item["active_seconds"] + 10)
    submitted = client.post(f"/api/items/{item['id']}/submit/", {"active_seconds": 5}, format="json").json()
    assert submitted["state"] == "in_review"
    assert submitted["active_seconds"] == pytest.approx(item["active_seconds"] + 15)
    bad = client.post(f"/api/items/{item['id']}/effort/", {"seconds": -1}, format="json")
    assert bad.status_code == 400 and "seconds" in bad.json()
    assert Mark.objects.count() == 1


@pytest.mark.parametrize("state", [Item.State.APPROVED, Item.State.IN_ADJUDICATION])
def test_effort_on_an_approved_or_judged_item_is_a_conflict(annotator: Any, api: Any, state: str) -> None:
    from tests.factories import ItemFactory

    item = ItemFactory(author=annotator, state=state)
    answer = api(annotator).post(f"/api/items/{item.id}/effort/", {"seconds": 10}, format="json")
    assert answer.status_code == 409
    assert "effort is recorded while it is worked on" in answer.json()["detail"]
    assert Item.objects.get(id=item.id).active_seconds == item.active_seconds


@pytest.mark.django_db
def test_ids_and_seeds_past_64_bits_in_a_form_body_are_refused_on_their_field(api, annotator) -> None:  # type: ignore[no-untyped-def]
    # Given an annotator; when a form body (not read by the bounded JSON parser) carries huge numbers
    big = str(2**64)
    check = api(annotator).post("/api/items/check/", {"mark_ids": [big]})
    compile_ = api(annotator).post("/api/items/", {"task": "target_visibility", "mark_ids": ["1"], "seed": big})
    # then each is a 400 naming the field, not a database error
    assert check.status_code == 400 and "mark_ids" in check.json()
    assert compile_.status_code == 400 and "seed" in compile_.json()


@pytest.mark.parametrize("scene", ["²", "٣", str(2**64), "-1", "1e3"])
def test_a_scene_filter_that_is_no_id_is_a_field_error(annotator: Any, api: Any, scene: str) -> None:
    answer = api(annotator).get("/api/items/", {"scene": scene})
    assert answer.status_code == 400
    assert answer.json() == {"scene": ["a scene id is a number"]}
