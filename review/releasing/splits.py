"""Splits of a release, decided by fixed rules and a fixed seed (pure functions).

- full: every item.
- train / test: disjoint by scene *group*. Scenes that share a video or a satellite image are one
  group, so no video and no satellite image appears on both sides (a model fine-tuned on train
  has never seen the test imagery). Groups, in a seeded order, go to test while that brings test
  closer to the test share of the items (the admin's choice, TEST_SHARE unless set), with at least
  one group in test and, unless the share is 1, at least one left for train. So two scenes give one
  each; one scene group cannot be split and gives an empty train, which the build reports.
- tiny: TINY_PER_TASK items per task (the paper's tiny set: 60 x 12 = 720), drawn from the test
  split, taking scenes in turn so one long video does not fill a task's quota.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

TEST_SHARE = 0.8
MIN_TEST_SHARE, MAX_TEST_SHARE = 0.05, 1.0
TINY_PER_TASK = 60
SEED = 20_251_117
RULE = (
    "by scene group: scenes sharing a video or a satellite image form one group, and a group is wholly "
    "in test or in train; groups go to test in a seeded order while that brings test closer to test_share "
    "of the items, keeping at least one group on each side when there are two or more; tiny is up to "
    f"{TINY_PER_TASK} test items per task, taking scenes in turn"
)


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


def split_items(records: list[dict[str, Any]]) -> list[SplitItem]:
    """What the split rule looks at in a release record: its task, scene and media hashes."""
    return [
        SplitItem(
            uid=r["id"],
            task=r["task"],
            scene=r["scene"],
            media=frozenset([r["video"]["sha256"], *(s["sha256"] for s in r["satellite_images"])]),
        )
        for r in records
    ]


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
        # At least one group in test; then groups while that brings test closer to its share and
        # (below a share of 1) some group stays in train.
        keeps_train = test_share >= 1 or len(test_groups) + 1 < len(sizes)
        closer = abs(taken + sizes[group] - target) < abs(taken - target)
        if not test_groups or (keeps_train and closer):
            test_groups.add(group)
            taken += sizes[group]
    return {item.uid: "test" if group_of[item.scene] in test_groups else "train" for item in items}


def report(records: list[dict[str, Any]], *, test_share: float = TEST_SHARE, seed: int = SEED) -> dict[str, Any]:
    """The rule as the manifest records it, and a sentence for each split left empty."""
    groups = len(set(scene_groups(split_items(records)).values()))
    counts = {
        "test": sum(r["split"] == "test" for r in records),
        "train": sum(r["split"] == "train" for r in records),
        "tiny": sum(bool(r["tiny"]) for r in records),
    }
    warnings = []
    if not counts["train"]:
        why = (
            f"the test share is {test_share:.0%}"
            if test_share >= 1
            else f"all {len(records)} items come from {groups} scene group(s) (scenes sharing a video or "
            "satellite image), and a group is never split"
        )
        warnings.append(f"train is empty: {why}. Release items from more scenes for a train split.")
    if not counts["test"] or not counts["tiny"]:
        warnings.append("test and tiny are empty: there are no items to test on.")
    split = {"rule": RULE, "test_share": test_share, "seed": seed, "scene_groups": groups, "counts": counts}
    return {"split": split, "warnings": warnings}


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
