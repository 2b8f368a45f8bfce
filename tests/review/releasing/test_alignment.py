"""review.releasing.alignment: the "with CVAA" question of each released item, from the placements of
the keyframes the item is about, frozen with the release (a later re-placement changes no built
release), and what an item without a trustworthy placement says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from annotator.models import Item, KeyframePlacement
from review.models import Release, ReleaseItem
from review.releasing import alignment
from review.releasing.services import release_build
from tests.factories import (
    ItemFactory,
    KeyframeFactory,
    KeyframePlacementFactory,
    MarkFactory,
    SatelliteImageFactory,
    SceneFactory,
)
from tests.review.releasing.compiled import records_of, root_of, sha

pytestmark = pytest.mark.django_db
FRAMES = "cvaa_frames.jsonl"
NONE = "CVAA alignment prior: none (no reliable placement of the drone frames on the satellite image)."


@pytest.fixture
def scene(annotator: Any) -> Any:
    """A 2 s scene (the tiny clip) on one 200 x 100 image, keyframes at 0.0, 0.5, ... 2.0 s."""
    image = SatelliteImageFactory()
    scene = SceneFactory(name="Saro", satellite_images=[image], annotators=[annotator])
    for i in range(5):
        KeyframeFactory(video=scene.video, index=i, time_s=0.5 * i)
    return scene


def _keyframe(scene: Any, index: int) -> Any:
    return scene.video.keyframes.get(index=index)


def _place(**fields: Any) -> KeyframePlacement:
    """A placement whose footprint is the 40 x 30 px box at (20, 10) unless told otherwise."""
    return KeyframePlacementFactory(**{"box": (20.0, 10.0, 60.0, 40.0), **fields})


def _item(scene: Any, annotator: Any, **provenance: Any) -> Item:
    """An approved Zone Counting item asking about `provenance`'s time(s), its mark on the scene's image."""
    mark = MarkFactory(scene=scene, author=annotator)
    return ItemFactory(
        scene=scene,
        author=annotator,
        state=Item.State.APPROVED,
        task=Item.Task.ZONE_COUNTING,
        options=[],
        answer="3",
        answer_format=Item.AnswerFormat.NUMBER,
        provenance=provenance,
        marks=[mark],
    )


def _cvaa(release: Release, media_root: Path) -> dict[str, dict[str, Any]]:
    """Each record's `cvaa` block, its keyframes read through the release's frame table (the rows of
    cvaa_frames.jsonl the record names, with the item's box on its picture and why it has none)."""
    by_key = alignment.frames_by_key(records_of(release, media_root, FRAMES))
    records = records_of(release, media_root)
    return {r["id"]: {**r["cvaa"], "frames": alignment.keyframes_of(r, by_key)} for r in records}


def test_an_item_at_an_instant_gets_the_box_of_the_nearest_keyframe(scene, annotator, admin, media_root) -> None:
    # given an item about 1.2 s and the keyframe at 1.0 s placed by matching
    item = _item(scene, annotator, time_s=1.2)
    image = scene.satellite_images.get()
    _place(
        keyframe=_keyframe(scene, 2), satellite_image=image, confidence=0.8, uncertainty_px=4.5, uncertainty_m=1.2,
        quad=[[20.4, 10.0], [60.0, 12.0], [59.0, 40.6], [21.0, 38.0]],
    )  # fmt: skip
    # a placement of a farther keyframe is not the one the item is about
    _place(keyframe=_keyframe(scene, 4), satellite_image=image, quad=[[0, 0], [9, 0], [9, 9], [0, 9]])

    # when it is released
    release = release_build(version="1.0", user=admin)

    # then the with-CVAA question is the question and the box, as the paper serializes it
    record = records_of(release, media_root)[0]
    cvaa = record["cvaa"]
    assert record["id"] == item.uid
    prior = (
        "CVAA alignment prior: the drone frame at 1.0 s of the video lies in the box [x1, y1, x2, y2] = "
        "[20, 10, 60, 41] of the satellite image (pixels from the top-left corner)."
    )
    assert cvaa["question"] == f"{record['question']}\n{prior}"
    assert cvaa["status"] == "placed"
    # the record names the keyframe on its image and its box on the picture shown
    assert (cvaa["image"], cvaa["keyframes"], cvaa["boxes"]) == (image.sha256, [2], [[20, 10, 60, 41]])
    # the locator, its confidence and uncertainty are the frame's row in the release's frame table
    assert records_of(release, media_root, FRAMES) == [
        {
            "scene": "Saro",
            "keyframe": 2,
            "image": image.sha256,
            "time_s": 1.0,
            "source": "matching",
            "confidence": 0.8,
            "uncertainty_px": 4.5,
            "uncertainty_m": 1.2,
            "box_image": [20.4, 10.0, 60.0, 40.6],
            "reason": None,
        }
    ]
    (frame,) = _cvaa(release, media_root)[item.uid]["frames"]
    assert frame["box"] == [20, 10, 60, 41] and frame["reason"] is None
    assert release.manifest["cvaa"] == {"min_confidence": 0.5, "items": {"placed": 1}}
    assert FRAMES in {f["path"] for f in release.manifest["files"]}


def test_without_a_placement_or_with_low_confidence_the_variant_states_there_is_no_prior(
    scene, annotator, admin, media_root, settings
) -> None:
    # given three items: one whose keyframe nobody placed, one placed under the threshold, one on it
    settings.SKYMARK_CVAA_PRIOR_MIN_CONFIDENCE = 0.6
    unplaced = _item(scene, annotator, time_s=0.0)
    unsure = _item(scene, annotator, time_s=1.0)
    on_threshold = _item(scene, annotator, time_s=2.0)
    image = scene.satellite_images.get()
    _place(keyframe=_keyframe(scene, 2), satellite_image=image, confidence=0.59)
    _place(keyframe=_keyframe(scene, 4), satellite_image=image, confidence=0.6)

    release = release_build(version="1.0", user=admin)

    # then the first two say there is no prior (never a box), and why, per keyframe
    cvaa = _cvaa(release, media_root)
    records = {r["id"]: r for r in records_of(release, media_root)}
    for item, reason in ((unplaced, alignment.NO_PLACEMENT), (unsure, alignment.LOW_CONFIDENCE)):
        assert cvaa[item.uid]["question"] == f"{records[item.uid]['question']}\n{NONE}"
        assert cvaa[item.uid]["status"] == "none"
        assert [(k["box"], k["reason"]) for k in cvaa[item.uid]["frames"]] == [(None, reason)]
    # the low one keeps what the locator said, so a reader sees why it was left out
    assert cvaa[unsure.uid]["frames"][0]["confidence"] == 0.59
    assert cvaa[on_threshold.uid]["frames"][0]["box"] == [20, 10, 60, 40]
    # and the datasheet and manifest count them
    assert release.manifest["cvaa"] == {"min_confidence": 0.6, "items": {"none": 2, "placed": 1}}
    page = (root_of(release, media_root) / "datasheet" / "index.html").read_text()
    assert "2 item(s) have no CVAA alignment prior" in page
    assert 'no box: confidence below the threshold</td><td class="num">1<' in page
    assert 'no box: no placement</td><td class="num">1<' in page
    assert 'box from matching</td><td class="num">1<' in page


def test_an_item_about_the_whole_video_lists_five_frames_and_never_uses_its_key(
    scene, annotator, admin, media_root
) -> None:
    # given a Temporal Grounding item keyed 1.5 s (its first-seen time is the key) and two placed frames
    mark = MarkFactory(scene=scene, author=annotator)
    item = ItemFactory(
        scene=scene, author=annotator, state=Item.State.APPROVED, task=Item.Task.TEMPORAL_GROUNDING, options=[],
        answer="1.5", answer_format=Item.AnswerFormat.TIMESTAMP, provenance={"first_seen_s": 1.5}, marks=[mark],
    )  # fmt: skip
    image = scene.satellite_images.get()
    _place(keyframe=_keyframe(scene, 0), satellite_image=image, source="telemetry")
    _place(keyframe=_keyframe(scene, 4), satellite_image=image, quad=[[150, 50], [250, 50], [250, 150], [150, 150]])

    release = release_build(version="1.0", user=admin)

    # then the frames at 0, 25, 50, 75 and 100 % of the 2 s video, each with its box or none
    cvaa = _cvaa(release, media_root)[item.uid]
    assert [k["time_s"] for k in cvaa["frames"]] == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert cvaa["status"] == "partial"
    # a footprint reaching past the image is cut to it
    assert "prior" not in cvaa  # it is the with-CVAA question's last line
    assert cvaa["question"].split("\n")[-1] == (
        "CVAA alignment prior, boxes [x1, y1, x2, y2] of the satellite image (pixels from the top-left corner): "
        "frame at 0.0 s: [20, 10, 60, 40]; frame at 0.5 s: no reliable box; frame at 1.0 s: no reliable box; "
        "frame at 1.5 s: no reliable box; frame at 2.0 s: [150, 50, 200, 100]."
    )
    assert [k["source"] for k in cvaa["frames"]] == ["telemetry", None, None, None, "matching"]


def test_a_later_placement_changes_no_built_release(scene, annotator, admin, media_root) -> None:
    # given release 1.0 with a placed item
    item = _item(scene, annotator, time_s=1.0)
    image = scene.satellite_images.get()
    placement = _place(keyframe=_keyframe(scene, 2), satellite_image=image)
    first = release_build(version="1.0", user=admin)
    root = root_of(first, media_root)
    files = {f["path"]: f["sha256"] for f in first.manifest["files"]}
    frozen_record = ReleaseItem.objects.get(release=first).record

    # when the keyframe is placed again elsewhere (another method, another box)
    KeyframePlacement.objects.filter(id=placement.id).update(
        quad=[[100, 50], [140, 50], [140, 80], [100, 80]], source="control_points", confidence=0.99
    )

    # then 1.0's rows, files and manifest are as they were, and the manifest's hashes cover the prior
    first.refresh_from_db()
    assert ReleaseItem.objects.get(release=first).record == frozen_record
    assert {f["path"]: f["sha256"] for f in first.manifest["files"]} == files
    for path in ("items.jsonl", FRAMES, "questions.jsonl", "vlmevalkit/skymark-1.0.tsv", "data/test.parquet"):
        if path in files:
            assert sha(root / path) == files[path]
    assert first.sources["cvaa"]["frames"][0]["source"] == "matching"
    assert _cvaa(first, media_root)[item.uid]["frames"][0]["box"] == [20, 10, 60, 40]
    # a new version takes the new placement, and its changelog names the item as changed
    second = release_build(version="1.1", user=admin)
    assert _cvaa(second, media_root)[item.uid]["frames"][0]["box"] == [100, 50, 140, 80]
    assert _cvaa(second, media_root)[item.uid]["frames"][0]["source"] == "control_points"
    assert second.changelog["changed"] == [item.uid]
    # a new confidence with the same box changes the item's frame row only, and still the item
    KeyframePlacement.objects.filter(id=placement.id).update(confidence=0.95)
    third = release_build(version="1.2", user=admin)
    assert ReleaseItem.objects.get(release=third).record == ReleaseItem.objects.get(release=second).record
    assert third.changelog["changed"] == [item.uid]


def test_questions_and_variants_carry_both_questions(scene, annotator, admin, media_root) -> None:
    item = _item(scene, annotator, segment_s=[0.0, 2.0])
    image = scene.satellite_images.get()
    _place(keyframe=_keyframe(scene, 2), satellite_image=image)

    release = release_build(version="1.0", user=admin)

    # an interval: its start, middle and end
    cvaa = _cvaa(release, media_root)[item.uid]
    assert [k["time_s"] for k in cvaa["frames"]] == [0.0, 1.0, 2.0] and cvaa["status"] == "partial"
    (question,) = records_of(release, media_root, "questions.jsonl")
    assert question["question_cvaa"] == cvaa["question"] and "answer" not in question
    (blind,) = records_of(release, media_root, "variants/no_visual.jsonl")
    assert blind["question_cvaa"] == cvaa["question"]
    readme = (root_of(release, media_root) / "README.md").read_text()
    assert "under 0.5, gets no box" in readme and '"variant": "cvaa"' in readme


def test_asked_times_follow_what_the_question_names() -> None:
    assert alignment.asked_times({"time_s": 3}, 10.0) == [3.0]
    assert alignment.asked_times({"times_s": [1, 4]}, 10.0) == [1.0, 4.0]
    assert alignment.asked_times({"interval_s": [2, 6]}, 10.0) == [2.0, 4.0, 6.0]
    # the key of a timing question is not what the prior is about
    assert alignment.asked_times({"first_seen_s": 7.0}, 8.0) == [0.0, 2.0, 4.0, 6.0, 8.0]
    assert alignment.asked_times({}, None) == [0.0]


@pytest.mark.parametrize(("t", "index"), [(-1.0, 0), (0.0, 0), (0.25, 0), (0.26, 1), (9.0, 2)])
def test_nearest_keyframe_at_the_ends_and_on_a_tie(t: float, index: int) -> None:
    assert alignment.nearest([0.0, 0.5, 1.0], t) == index


def test_a_box_moves_into_a_cut_and_scaled_view_and_is_clipped() -> None:
    # a view cut at (100, 50)-(300, 150) and drawn at half size
    frame = {"crop": [100, 50, 300, 150], "size": [100, 50]}
    assert alignment.to_picture([120.0, 60.0, 200.0, 100.0], frame) == [10, 5, 50, 25]
    assert alignment.to_picture([0.0, 0.0, 120.0, 70.0], frame) == [0, 0, 10, 10]
    assert alignment.to_picture([0.0, 0.0, 100.0, 50.0], frame) is None  # touches the cut, shows nothing
    assert alignment.to_picture([290.0, 140.0, 900.0, 900.0], frame) == [95, 45, 100, 50]


def test_a_lettered_view_frame_is_the_renderers_cut(settings) -> None:
    # candidates near one corner of a large image: the view is the cut around them, not the image
    from annotator.compiling.modelview.plan import lettered_crop, view_plan

    square = {"type": "Polygon", "coordinates": [[[1000, 1000], [1100, 1000], [1100, 1100], [1000, 1100]]]}
    provenance = {
        "marks": [{"id": 1, "label": "a", "geometry": square, "satellite_image": 9}],
        "candidates": [{"letter": "A", "geometry": square}],
    }
    record = {"media": {"images": ["media/items/skm-000001/view.jpg"]}, "provenance": provenance}
    image = {"width": 8000, "height": 6000, "valid_area": None, "sha256": "x"}
    frame = alignment.picture_frame(record, image)

    class Facts:
        width, height, valid_area = 8000, 6000, None

    assert tuple(frame["crop"]) == lettered_crop(view_plan(provenance), Facts())  # type: ignore[arg-type]
    assert frame["size"] == [frame["crop"][2] - frame["crop"][0], frame["crop"][3] - frame["crop"][1]]
    # the whole image, over the renderer's longest side, is scaled as the renderer scales it
    whole = alignment.picture_frame({**record, "provenance": {"marks": provenance["marks"]}}, image)
    assert whole["crop"] == [0, 0, 8000, 6000] and whole["size"] == [4096, 3072]


def test_the_priors_of_a_release_take_the_same_few_queries_for_any_number_of_items(
    scene, annotator, django_assert_num_queries
) -> None:
    # given records as the freeze has them, for one item and for six (two of them placed)
    from review.releasing.records import release_inputs

    image = scene.satellite_images.get()
    _place(keyframe=_keyframe(scene, 1), satellite_image=image)
    _place(keyframe=_keyframe(scene, 3), satellite_image=image)
    items = [_item(scene, annotator, time_s=0.5 * k) for k in range(6)]
    for chosen in (items[:1], items):
        inputs = release_inputs(Item.objects.filter(id__in=[i.id for i in chosen]))
        # the scenes' videos, the images, the keyframes, the placements
        with django_assert_num_queries(4):
            alignment.priors_attach(inputs.records, inputs.item_ids, inputs.scene_of, min_confidence=0.5)
        assert all("cvaa" in r for r in inputs.records)
    assert [r["cvaa"]["status"] for r in inputs.records] == ["none", "placed", "none", "placed", "none", "none"]


def test_a_records_keyframes_read_through_the_frame_table_with_why_each_has_no_box() -> None:
    # given a frame table of three keyframes of scene S on image "abc": unplaced, placed, placed low
    def placement(confidence: float) -> dict[str, Any]:
        box = [0.0, 0.0, 10.0, 10.0]
        return {
            "source": "matching",
            "confidence": confidence,
            "uncertainty_px": 2.0,
            "uncertainty_m": None,
            "box_image": box,
        }

    rows = [
        alignment.frame_row("S", "abc", (0, 0.0), None, 0.5),
        alignment.frame_row("S", "abc", (1, 0.5), placement(0.9), 0.5),
        alignment.frame_row("S", "abc", (2, 1.0), placement(0.2), 0.5),
    ]
    by_key = alignment.frames_by_key(rows)
    # when an item shows a picture its placed frame's footprint misses, and another one it does not
    missed = {"scene": "S", "cvaa": {"image": "abc", "keyframes": [0, 1, 2], "boxes": [None, None, None]}}
    shown = {"scene": "S", "cvaa": {"image": "abc", "keyframes": [1], "boxes": [[0, 0, 5, 5]]}}

    # then each keyframe is its row, with the item's box and why it has none
    reasons = [(k["keyframe"], k["source"], k["reason"]) for k in alignment.keyframes_of(missed, by_key)]
    assert reasons == [
        (0, None, alignment.NO_PLACEMENT),
        (1, "matching", alignment.OUTSIDE),
        (2, "matching", alignment.LOW_CONFIDENCE),
    ]
    (row,) = alignment.keyframes_of(shown, by_key)
    assert row["box"] == [0, 0, 5, 5] and row["reason"] is None and row["box_image"] == [0.0, 0.0, 10.0, 10.0]
