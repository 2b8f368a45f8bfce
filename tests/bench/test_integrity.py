"""bench/integrity.py at a small size: the demo scenes imported and processed, marks drawn through
the services, items compiled in "compile all" batches and one at a time, reviewed (rejections
revised, disagreements adjudicated) and released; the released records must not give the key away
by its position. A release whose keys all sat at one letter, or whose yes/no keys all said yes,
fails here."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from django.core.files.storage import default_storage

from annotator.models import Item
from bench.integrity import ENTROPY_GOAL, P_MODE_SLACK, build, options_of
from review.models import Release

pytestmark = pytest.mark.django_db
T = Item.Task
# Two yes/no tasks (keys balanced by asking some questions the other way round), lettered places drawn
# on the image (candidates swap, letters stay) and text options; the tasks whose model views cut no
# video segment, so the test stays short.
TASKS: list[str] = [T.TARGET_VISIBILITY, T.REGION_REACHABILITY, T.EVENT_GEOLOCALIZATION, T.REGION_INTERACTION,
         T.OCCLUSION_ATTRIBUTION]  # fmt: skip


def test_released_keys_sit_evenly_over_positions_in_every_task() -> None:
    # given a benchmark built from the demo data as a team builds one, at the smallest size the goal
    # applies to (2k items per task, k options)
    result = build(items_per_task=0, seed=3, tasks=TASKS, kinds=["probe", "render", "georeference", "valid_area"])
    # then it went the whole way: several annotators' batches and single compiles on both scenes,
    # rejections revised and disagreements adjudicated, everything released
    t = result.tally
    assert t.batches >= 2 and t.singles >= 1 and t.adjudicated >= 1 and t.revised >= 1
    release = Release.objects.get(version="1.0")
    assert release.state == Release.State.FROZEN and t.released == t.submitted == release.item_count
    with default_storage.open(release.items_file) as fh:
        records = [json.loads(line) for line in fh.read().decode().splitlines()]
    assert records == result.records
    per_task = Counter(r["task"] for r in records)
    assert per_task == {task: 2 * options_of(task) for task in TASKS}
    assert {r["scene"] for r in records} == {"Saro roundabout", "Kraklanda highway", "Brighton Beach"}
    # and in the released records every task's keys spread over its positions
    for report, verdict in zip(result.reports, result.verdicts, strict=True):
        k = options_of(report.task)
        assert verdict.applies, report.task
        assert report.positions is not None
        assert report.positions.entropy >= ENTROPY_GOAL, (report.task, report.positions)
        assert report.positions.p_mode <= 1 / k + P_MODE_SLACK, (report.task, report.positions)
        keys = Counter(r["options"].index(r["answer"]) for r in records if r["task"] == report.task)
        assert max(keys.values()) / sum(keys.values()) == pytest.approx(report.positions.p_mode, abs=1e-3)
