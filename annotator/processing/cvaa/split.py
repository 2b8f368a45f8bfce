"""The held-out split of CVAA training: by scene, never by pair.

Keyframes of one video are near-copies of one another, so holding out every fifth pair of a scene tests
recall on frames the model has all but seen. Whole scenes are held out instead, and scenes that share a
satellite image are kept together (one group): the model never sees the map of a held-out scene either,
neither as real pairs nor as self-supervised crops. Which groups are held out depends only on the seed and
the scene ids (a stable hash), so the same platform and seed give the same split.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

HELD_OUT_SHARE = 0.25


@dataclass(frozen=True)
class SceneSplit:
    train_scenes: frozenset[int]
    held_scenes: frozenset[int]
    train_images: frozenset[int]
    held_images: frozenset[int]

    def to_dict(self) -> dict[str, list[int]]:
        return {
            "train_scenes": sorted(self.train_scenes),
            "held_out_scenes": sorted(self.held_scenes),
            "train_images": sorted(self.train_images),
            "held_out_images": sorted(self.held_images),
        }


def scene_groups(scenes: Mapping[int, set[int]]) -> list[set[int]]:
    """Scenes joined when they share a satellite image (transitively), each group as a set of scene ids,
    ordered by their smallest scene id."""
    parent = {s: s for s in scenes}

    def root(s: int) -> int:
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    owner: dict[int, int] = {}
    for scene in sorted(scenes):
        for image in scenes[scene]:
            if image in owner:
                parent[root(scene)] = root(owner[image])
            else:
                owner[image] = scene
    groups: dict[int, set[int]] = {}
    for scene in scenes:
        groups.setdefault(root(scene), set()).add(scene)
    return sorted(groups.values(), key=min)


def _rank(group: set[int], seed: int) -> str:
    return hashlib.sha256(f"{seed}:{min(group)}".encode()).hexdigest()


def scene_split(scenes: Mapping[int, set[int]], *, seed: int, share: float = HELD_OUT_SHARE) -> SceneSplit:
    """Hold out whole groups (scene_groups), in seeded hash order, until at least `share` of the scenes are
    held out; at least one group when there are two or more, never all of them. `scenes`: scene id ->
    its satellite image ids."""
    groups = scene_groups(scenes)
    held: set[int] = set()
    if len(groups) >= 2:
        for group in sorted(groups, key=lambda g: _rank(g, seed))[:-1]:  # the last group always trains
            held |= group
            if len(held) >= share * len(scenes):
                break
    train = set(scenes) - held
    images = {s: set(v) for s, v in scenes.items()}
    return SceneSplit(
        train_scenes=frozenset(train),
        held_scenes=frozenset(held),
        train_images=frozenset(i for s in train for i in images[s]),
        held_images=frozenset(i for s in held for i in images[s]),
    )
