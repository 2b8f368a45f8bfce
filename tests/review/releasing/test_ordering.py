"""review.releasing.ordering (and its drawing): the freeze balances what it releases. Keys that
every scene's batch and every single compile put at the same position come out spread over the
positions per task, lettered images drawn with the release's letters; yes/no keys even with the
wording independent of the key, what was held back listed; the same items give the same files."""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from django.core.files.storage import default_storage

from annotator.compiling.batch import items_compile_all
from annotator.compiling.modelview import draw_images, image_name, lettered_crop, view_plan
from annotator.compiling.services import item_compile
from annotator.models import Item, ModelView, SatelliteImage
from media_tools.imagery.modelview import MAX_VIEW_SIDE, OPTION_MAX_SIDE
from review.releasing.ordering import balance_release, fact_of
from review.releasing.services import release_build
from tests.annotator.compiling.test_compile_each_task import Marks, _point, _poly
from tests.factories import ReviewFactory
from tests.review.releasing.compiled import key_at, records_of, render_and_approve, root_of, sha

pytestmark = pytest.mark.django_db
T = Item.Task


def _events(m: Marks, xs: tuple[float, ...]) -> list[Any]:
    return [
        m("point", _point(x, 40), "car", time_start=1.2, time_end=None, facts={"event": "the car stops"}) for x in xs
    ]


@pytest.fixture
def all_at_d(annotator: Any) -> list[Item]:
    """Event Geo-localization items from three scenes, single compiles and two compile-all batches,
    and Relative Direction items, every key moved to the same position before rendering."""
    items = []
    for k in range(3):
        m = Marks(annotator)
        [spot] = _events(m, (120,))
        items.append(item_compile(user=annotator, task=T.EVENT_GEOLOCALIZATION, mark_ids=[spot.id], seed=k))
        if k < 2:  # a batch of two more in the same scene, from seed 0 as the button compiles them
            _events(m, (60, 160))
            items += items_compile_all(user=annotator, scene_id=m.scene.id, seed=0).items
        car = m("point", _point(100, 10), "car", time_start=1.0, time_end=None)
        circle = m("polygon", _poly(90, 40, 110, 60), "roundabout")
        items.append(item_compile(user=annotator, task=T.RELATIVE_DIRECTION, mark_ids=[car.id, circle.id], seed=k))
    key_at([i for i in items if i.task == T.EVENT_GEOLOCALIZATION], 3)
    key_at([i for i in items if i.task == T.RELATIVE_DIRECTION], 0)
    return render_and_approve(items)


def _drawn(record: dict[str, Any], folder: Path) -> dict[str, bytes]:
    """The model view's own drawing of the record's candidates, lettered as the record letters them."""
    plan = view_plan(record["provenance"])
    image = SatelliteImage.objects.get(id=plan.image_id)
    src = Path(default_storage.path(image_name(image)))
    view, options = draw_images(
        plan,
        src,
        folder,
        crop=lettered_crop(plan, image),
        side=MAX_VIEW_SIDE,
        option_side=OPTION_MAX_SIDE,
        on_progress=lambda _f: None,
    )
    return {"view": view.read_bytes(), **{letter: path.read_bytes() for letter, path in options}}


def assert_lettered_consistently(root: Path, record: dict[str, Any]) -> None:
    """Options, answer, candidates' letters and the shipped images all say the same thing."""
    prov = record["provenance"]
    key = record["options"].index(record["answer"])
    assert record["options"] == ["A", "B", "C", "D"] and prov["key_position"] == key
    assert [c["letter"] for c in prov["candidates"]] == record["options"]
    assert (prov["candidates"][key]["source"], prov["candidates"][key]["letter"]) == ("truth", record["answer"])
    assert [o["option"] for o in record["media"]["option_images"]] == record["options"]
    with tempfile.TemporaryDirectory() as tmp:
        expected = _drawn(record, Path(tmp))
    assert (root / record["media"]["images"][0]).read_bytes() == expected["view"]
    for option in record["media"]["option_images"]:
        assert (root / option["image"]).read_bytes() == expected[option["option"]], option


def test_keys_at_one_position_everywhere_come_out_balanced_and_drawn_with_the_new_letters(
    all_at_d: list[Item], admin: Any, media_root: Path
) -> None:
    # given 7 Event Geo-localization keys all at D (3 scenes, 2 batches, 3 single compiles) and 3
    # Relative Direction keys all at the first of 8 sectors
    compiled = Counter((i.task, i.options.index(i.answer)) for i in all_at_d)
    assert compiled == {(T.EVENT_GEOLOCALIZATION, 3): 7, (T.RELATIVE_DIRECTION, 0): 3}

    # when released
    release = release_build(version="1.0", user=admin)
    root, records = root_of(release, media_root), records_of(release, media_root)

    # then per task each position holds the key as often as the count allows (differ by <= 1)
    for task, n in ((T.EVENT_GEOLOCALIZATION, 4), (T.RELATIVE_DIRECTION, 8)):
        positions = Counter(r["options"].index(r["answer"]) for r in records if r["task"] == task)
        counts = [positions.get(p, 0) for p in range(n)]
        assert max(counts) - min(counts) <= 1 and sum(counts) == Counter(i.task for i in all_at_d)[task], task
    # and every lettered record is consistent: letters, answer, candidates, view and option images
    events = [r for r in records if r["task"] == T.EVENT_GEOLOCALIZATION]
    for record in events:
        assert_lettered_consistently(root, record)
        # the record says how the release ordered it; the frozen item keeps its compiled order
        order = record["provenance"]["release"]["order"]
        item = Item.objects.get(id=int(record["id"].rsplit("-", 1)[1]))
        assert item.answer == "D" and record["provenance"]["release"]["compiled_key_position"] == 3
        compiled = item.provenance["candidates"]
        assert [c["geometry"] for c in record["provenance"]["candidates"]] == [compiled[o]["geometry"] for o in order]
        stored = ModelView.objects.get(item=item).image
        moved = order != [0, 1, 2, 3]
        assert ((root / record["media"]["images"][0]).read_bytes() == stored.read()) is not moved
    assert sum(r["provenance"]["release"]["order"] != [0, 1, 2, 3] for r in events) == 5  # two stay at D
    # text options move in the record only, the key text stays
    for record in (r for r in records if r["task"] == T.RELATIVE_DIRECTION):
        item = Item.objects.get(id=int(record["id"].rsplit("-", 1)[1]))
        assert record["answer"] == item.answer and sorted(record["options"]) == sorted(item.options)
    # and the datasheet's balance table shows it
    assert release.manifest["held_back"] == []

    # when the same items are released again / then the same records and files, byte for byte
    again = release_build(version="1.1", user=admin)
    assert again.changelog["changed"] == [] and again.changelog["added"] == []
    first = {f["path"]: f["sha256"] for f in release.manifest["files"]}
    second = {f["path"]: f["sha256"] for f in again.manifest["files"]}
    same = [p for p in first if p == "items.jsonl" or p.startswith(("media/", "variants/", "data/"))]
    assert len([p for p in same if p.startswith("media/")]) >= 7 * 5
    assert {p: first[p] for p in same} == {p: second[p] for p in same}
    assert first["items.jsonl"] == sha(root / "items.jsonl")


def _visibility(m: Marks, annotator: Any, visible: bool, k: int) -> Item:
    region = m("polygon", _poly(10 + 10 * k, 10, 30 + 10 * k, 30), f"pier {k}", facts={"visible": visible})
    return item_compile(user=annotator, task=T.TARGET_VISIBILITY, mark_ids=[region.id], seed=k)


def _reachability(m: Marks, annotator: Any, reaches: bool, k: int) -> Item:
    truck = m("point", _point(20, 50 + k), f"truck {k}", facts={"future_action": "turns left", "reaches": reaches})
    lot = m("polygon", _poly(150, 40, 180, 60), f"lot {k}")
    return item_compile(user=annotator, task=T.REGION_REACHABILITY, mark_ids=[truck.id, lot.id], seed=k)


@pytest.fixture
def skewed_yes_no(annotator: Any) -> list[Item]:
    """Target Visibility: 7 regions seen, 3 not; Region Reachability: 2 reach, 6 do not. Compiled
    one by one and in a batch, asked the positive way (a single compile) or as the batch chose."""
    m = Marks(annotator)
    items = [_visibility(m, annotator, k < 7, k) for k in range(10)]
    items += [_reachability(m, annotator, k < 2, k) for k in range(6)]
    batch = Marks(annotator)
    for k in range(2):
        truck = batch("point", _point(20, 50 + k), f"van {k}", facts={"future_action": "turns left", "reaches": False})
        batch("polygon", _poly(150, 40 + k, 180, 60), f"yard {k}")
        assert truck.id
    made = items_compile_all(user=annotator, scene_id=batch.scene.id, seed=0).items
    items += [i for i in made if i.task == T.REGION_REACHABILITY and not i.provenance["reaches"]][:2]
    return render_and_approve(items)


def test_yes_no_keys_are_balanced_with_wording_independent_of_the_key(
    skewed_yes_no: list[Item], admin: Any, media_root: Path, client: Any
) -> None:
    facts = Counter((i.task, fact_of({"answer": i.answer, "provenance": i.provenance})) for i in skewed_yes_no)
    assert facts == {(T.TARGET_VISIBILITY, True): 7, (T.TARGET_VISIBILITY, False): 3,
                     (T.REGION_REACHABILITY, True): 2, (T.REGION_REACHABILITY, False): 6}  # fmt: skip
    # reviewers' blind answers (right ones) to the regions not seen, the fact never held back
    answered = [i for i in skewed_yes_no if i.task == T.TARGET_VISIBILITY and not i.provenance["visible"]]
    for item in answered:
        ReviewFactory(item=item, blind_answer=item.answer, revision=item.revision)

    # when released (yes/no balancing is on by default)
    release = release_build(version="1.0", user=admin)
    records = records_of(release, media_root)

    # then per task the keys are even and the wording says nothing about the key
    for task, kept in ((T.TARGET_VISIBILITY, 6), (T.REGION_REACHABILITY, 4)):
        mine = [r for r in records if r["task"] == task]
        assert len(mine) == kept
        assert Counter(r["answer"] for r in mine) == {"yes": kept // 2, "no": kept // 2}, task
        for polarity in ("positive", "negative"):
            worded = [r["answer"] for r in mine if r["provenance"]["polarity"] == polarity]
            assert worded and Counter(worded)["yes"] * 2 == len(worded), (task, polarity)
        for r in mine:  # the key is the fact read through the wording the record asks
            item = Item.objects.get(id=int(r["id"].rsplit("-", 1)[1]))
            assert fact_of(r) == fact_of({"answer": item.answer, "provenance": item.provenance})
            assert r["provenance"]["release"]["polarity"] == r["provenance"]["polarity"]
            assert r["question"] in (item.question, item.provenance["alternate"]["question"])
    # and what was held back is listed by id and reason: the surplus of the majority fact
    held = release.manifest["held_back"]
    assert Counter(h["task"] for h in held) == {T.TARGET_VISIBILITY: 4, T.REGION_REACHABILITY: 4}
    assert all("surplus of the majority fact" in h["reason"] for h in held)
    by_id = {i.uid: i for i in skewed_yes_no}
    assert {fact_of({"answer": by_id[h["id"]].answer, "provenance": by_id[h["id"]].provenance}) for h in held
            if h["task"] == T.TARGET_VISIBILITY} == {True}  # fmt: skip
    assert not {h["id"] for h in held} & {r["id"] for r in records}
    assert sorted(release.sources["held_back"], key=lambda h: h["id"]) == held
    assert release.filters["balance_yes_no"] is True
    page = (root_of(release, media_root) / "datasheet" / "index.html").read_text()
    assert all(h["id"] in page for h in held)
    client.force_login(admin)
    listing = client.get("/releases/").content.decode()
    assert "8 held back for yes/no balance" in listing and all(h["id"] in listing for h in held)
    # and the blind answers follow the wording: right before, right now (one question was turned round)
    human = {h["id"]: h["answer"] for h in records_of(release, media_root, "human_answers.jsonl")}
    released = {r["id"]: r for r in records}
    assert {i.uid: human[i.uid] for i in answered} == {i.uid: released[i.uid]["answer"] for i in answered}
    assert {released[i.uid]["provenance"]["polarity"] for i in answered} == {"positive", "negative"}


def test_yes_no_balancing_can_be_turned_off(skewed_yes_no: list[Item], admin: Any, media_root: Path) -> None:
    release = release_build(version="1.0", user=admin, balance_yes_no=False)
    records = records_of(release, media_root)
    assert len(records) == len(skewed_yes_no) and release.manifest["held_back"] == []
    assert release.manifest["filters"]["balance_yes_no"] is False
    # the wording is still chosen half and half within each fact, never to even out the keys
    for task in (T.TARGET_VISIBILITY, T.REGION_REACHABILITY):
        for fact in (True, False):
            worded = Counter(r["provenance"]["polarity"] for r in records if r["task"] == task and fact_of(r) is fact)
            assert abs(worded["positive"] - worded["negative"]) <= 1, (task, fact)


def test_everything_held_back_is_refused_with_a_reason(annotator: Any, admin: Any) -> None:
    m = Marks(annotator)
    render_and_approve([_visibility(m, annotator, True, k) for k in range(2)])
    with pytest.raises(Exception, match="would be held back to balance yes and no"):
        release_build(version="1.0", user=admin)


def _record(uid: str, task: str, options: list[str], answer: str, **provenance: Any) -> dict[str, Any]:
    fmt = "yes_no" if options == ["yes", "no"] else "multiple_choice"
    return {"id": uid, "task": task, "options": options, "answer": answer, "answer_format": fmt,
            "question": "q?", "media": {}, "provenance": provenance}  # fmt: skip


def test_balance_release_is_pure_and_the_same_for_the_same_records() -> None:
    records = [_record(f"skm-{i:06d}", "relative_direction", ["n", "e", "s", "w"], "w") for i in range(9)]
    out = balance_release(records)
    assert [r["answer"] for r in records] == ["w"] * 9 and all(r["options"][3] == "w" for r in records)
    assert sorted(Counter(r["options"].index("w") for r in out.records).values()) == [2, 2, 2, 3]
    assert balance_release(records).records == out.records


def test_keys_are_even_in_tiny_in_test_and_overall() -> None:
    # given 9 tiny test items, 6 more test items and 11 train items, every key at D
    records = [_record(f"skm-{i:06d}", "occlusion_attribution", ["a", "b", "c", "d"], "d") for i in range(26)]

    def place(rows: list[dict[str, Any]]) -> None:
        for i, r in enumerate(rows):
            r["split"], r["tiny"] = ("test" if i < 15 else "train"), i < 9

    out = balance_release(records, place=place).records

    # then each of tiny, test and the whole release has its keys as even as its count allows
    def spread(rows: list[dict[str, Any]]) -> list[int]:
        tally = Counter(r["options"].index(r["answer"]) for r in rows)
        return sorted(tally.get(p, 0) for p in range(4))

    assert spread([r for r in out if r["tiny"]]) == [2, 2, 2, 3]
    assert spread([r for r in out if r["split"] == "test"]) == [3, 4, 4, 4]
    assert spread(out) == [6, 6, 7, 7]
