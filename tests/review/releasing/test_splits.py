"""review.releasing.splits: train/test share no media, tiny is stratified per task, all seeded."""

from __future__ import annotations

from collections import Counter

from review.releasing.splits import SplitItem, scene_groups, tiny, train_test


def _items() -> list[SplitItem]:
    # 20 scenes, two of which share a satellite image, each with 10 items of 3 tasks
    items = []
    for s in range(20):
        media = frozenset({f"video{s}", "shared-image" if s in (3, 4) else f"image{s}"})
        for k in range(10):
            items.append(SplitItem(uid=f"skm-{s:02d}{k}", task=f"task{k % 3}", scene=f"scene{s}", media=media))
    return items


def test_scenes_sharing_media_are_one_group() -> None:
    groups = scene_groups(_items())
    assert groups["scene3"] == groups["scene4"]
    assert len(set(groups.values())) == 19


def test_train_and_test_share_no_video_and_no_image() -> None:
    items = _items()
    split = train_test(items)
    media = {side: {m for i in items if split[i.uid] == side for m in i.media} for side in ("train", "test")}
    assert media["train"] and media["test"]
    assert media["train"].isdisjoint(media["test"])
    # close to the test share by item count (whole scenes move, so not exact)
    assert abs(sum(v == "test" for v in split.values()) / len(items) - 0.8) <= 0.05


def test_splits_are_seeded_and_independent_of_order() -> None:
    items = _items()
    assert train_test(items) == train_test(list(reversed(items)))
    assert train_test(items, seed=1) != train_test(items, seed=2)


def test_tiny_takes_up_to_n_test_items_per_task_across_scenes() -> None:
    items = _items()
    split = train_test(items)
    chosen = tiny(items, split, per_task=12)
    by_uid = {i.uid: i for i in items}
    assert all(split[u] == "test" for u in chosen)
    assert Counter(by_uid[u].task for u in chosen) == {"task0": 12, "task1": 12, "task2": 12}
    # scenes are taken in turn, so 12 items of a task come from many scenes
    assert len({by_uid[u].scene for u in chosen if by_uid[u].task == "task0"}) >= 10
    assert tiny(items, split, per_task=12) == chosen


def test_a_task_with_fewer_items_gives_all_of_them() -> None:
    items = _items()[:4]
    split = {i.uid: "test" for i in items}
    assert tiny(items, split, per_task=60) == {i.uid for i in items}


def _scenes(*sizes: int) -> list[SplitItem]:
    return [
        SplitItem(uid=f"skm-{s}{k:03d}", task="task0", scene=f"scene{s}", media=frozenset({f"video{s}", f"image{s}"}))
        for s, n in enumerate(sizes)
        for k in range(n)
    ]


def test_two_scenes_give_one_to_test_and_one_to_train() -> None:
    for sizes in ((5, 5), (1, 9), (9, 1)):
        split = train_test(_scenes(*sizes))
        assert sorted(set(split.values())) == ["test", "train"], sizes


def test_a_single_group_cannot_be_split_and_a_share_of_one_keeps_train_empty() -> None:
    assert set(train_test(_scenes(7)).values()) == {"test"}
    assert set(train_test(_scenes(3, 4, 5), test_share=1.0).values()) == {"test"}


def test_the_share_moves_whole_scenes_towards_it() -> None:
    items = _scenes(*([10] * 10))
    for share in (0.2, 0.5, 0.8):
        split = train_test(items, test_share=share)
        assert sum(v == "test" for v in split.values()) == share * 100
