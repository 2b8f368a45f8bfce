"""The held-out split of CVAA training is by scene, and scenes that share a satellite image stay together,
so no scene and no image is on both sides."""

from __future__ import annotations

from annotator.processing.cvaa.split import scene_groups, scene_split

# scene -> images: 1 and 2 share image 10; 3 and 4 share 30 through 4's second image; 5 and 6 alone.
SCENES = {1: {10}, 2: {10, 11}, 3: {30}, 4: {40, 30}, 5: {50}, 6: {60}}


def test_scenes_sharing_an_image_form_one_group() -> None:
    assert scene_groups(SCENES) == [{1, 2}, {3, 4}, {5}, {6}]


def test_no_scene_and_no_image_is_on_both_sides_for_any_seed() -> None:
    for seed in range(20):
        split = scene_split(SCENES, seed=seed)
        assert not split.train_scenes & split.held_scenes
        assert split.train_scenes | split.held_scenes == set(SCENES)
        assert not split.train_images & split.held_images
        # whole groups move: a held-out scene's image-sharing partner is held out with it
        for group in scene_groups(SCENES):
            assert group <= split.held_scenes or group <= split.train_scenes
        assert len(split.held_scenes) >= 0.25 * len(SCENES) and split.train_scenes


def test_the_split_is_the_same_for_the_same_seed_and_moves_with_it() -> None:
    assert scene_split(SCENES, seed=3) == scene_split(SCENES, seed=3)
    assert len({scene_split(SCENES, seed=s).held_scenes for s in range(20)}) > 1


def test_one_group_holds_nothing_out() -> None:
    split = scene_split({1: {10}, 2: {10}}, seed=0)
    assert (split.held_scenes, split.train_scenes, split.held_images) == (frozenset(), {1, 2}, frozenset())
