"""Splits of a release, decided by fixed rules and a fixed seed (pure functions).

- full: every item.
- train / test: disjoint by scene *group*. Scenes that share a video or a satellite image are one
  group, so no video and no satellite image appears on both sides (a model fine-tuned on train
  has never seen the test imagery). Groups go to test until it holds TEST_SHARE of the items.
- tiny: TINY_PER_TASK items per task (the paper's tiny set: 60 x 12 = 720), drawn from the test
  split, taking scenes in turn so one long video does not fill a task's quota.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

TEST_SHARE = 0.8
TINY_PER_TASK = 60
SEED = 20_251_117


@dataclass(frozen=True)
class SplitItem:
    uid: str
    task: str
    scene: str
    media: frozenset[str]  # sha256 of the scene's video and satellite images


def _rank(seed: int, key: str) -> str:
    """A stable pseudo-random order that does not depend on Python's hash seed or list order."""
    return hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()


def scene_groups(items: Iterable[SplitItem]) -> dict[str, str]:
    """Scene -> group id, joining scenes that share any media file (union-find)."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for item in items:
        for sha in item.media:
            a, b = find(f"scene:{item.scene}"), find(f"media:{sha}")
            if a != b:
                parent[max(a, b)] = min(a, b)
        find(f"scene:{item.scene}")
    return {key[6:]: find(key) for key in list(parent) if key.startswith("scene:")}


def train_test(items: list[SplitItem], *, test_share: float = TEST_SHARE, seed: int = SEED) -> dict[str, str]:
    """uid -> "train" | "test". Whole groups move together; the order of groups is seeded."""
    group_of = scene_groups(items)
    sizes: dict[str, int] = defaultdict(int)
    for item in items:
        sizes[group_of[item.scene]] += 1
    target = test_share * len(items)
    test_groups: set[str] = set()
    taken = 0
    for group in sorted(sizes, key=lambda g: _rank(seed, g)):
        # Always at least one group in test; then add groups while that brings test closer to its share.
        if not test_groups or abs(taken + sizes[group] - target) < abs(taken - target):
            test_groups.add(group)
            taken += sizes[group]
    return {item.uid: "test" if group_of[item.scene] in test_groups else "train" for item in items}


def tiny(items: list[SplitItem], split: dict[str, str], *, per_task: int = TINY_PER_TASK, seed: int = SEED) -> set[str]:
    """uids of the tiny set: per task, test items taken one scene at a time in a seeded order."""
    chosen: set[str] = set()
    by_task: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for item in items:
        if split[item.uid] == "test":
            by_task[item.task][item.scene].append(item.uid)
    for _task, scenes in sorted(by_task.items()):
        queues = [
            sorted(uids, key=lambda u: _rank(seed, u))
            for _, uids in sorted(scenes.items(), key=lambda s: _rank(seed, s[0]))
        ]
        picked: list[str] = []
        while len(picked) < per_task and any(queues):
            for queue in queues:
                if queue and len(picked) < per_task:
                    picked.append(queue.pop(0))
        chosen.update(picked)
    return chosen
