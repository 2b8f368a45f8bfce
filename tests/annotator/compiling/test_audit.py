"""annotator.compiling.audit: the figures that tell whether a model could score without looking,
each checked on sets built to be fair and sets built to leak."""

from __future__ import annotations

import json
import math
import random
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from annotator.compiling.audit import (
    Row,
    audit,
    blind_baseline,
    effort_by_task,
    longest_key,
    near_duplicates,
    position_bias,
)
from annotator.models import Item
from tests.factories import ItemFactory, SceneFactory

LETTERS = ["A", "B", "C", "D"]


def _row(i: int, *, scene: int = 1, question: str = "Which one?", options: list[str] | None = None,
         answer: str = "A", marks: frozenset[int] | None = None, task: str = "scene_association") -> Row:  # fmt: skip
    return Row(i, task, scene, question, options or LETTERS, answer, "multiple_choice",
               marks if marks is not None else frozenset({i}), "Which one?")  # fmt: skip


def test_keys_spread_evenly_have_full_entropy_and_no_divergence() -> None:
    bias = position_bias([0, 1, 2, 3] * 5, 4)
    assert (bias.entropy, bias.p_mode, bias.kl_uniform) == (1.0, 0.25, 0.0)
    assert bias.z_mode == 0.0


def test_keys_always_in_one_place_have_no_entropy() -> None:
    bias = position_bias([2] * 12, 4)
    assert (bias.entropy, bias.p_mode) == (0.0, 1.0)
    assert bias.kl_uniform == pytest.approx(math.log(4), abs=1e-4) and bias.z_mode > 5


def test_the_longest_option_is_counted_only_where_lengths_differ() -> None:
    rows = [
        _row(1, options=["it goes into the park", "it stays away", "it passes"], answer="it goes into the park"),
        _row(2, options=["north", "south-west", "east"], answer="north"),
        _row(3),  # letters: all one length, not judged
    ]
    assert longest_key(rows) == (0.5, pytest.approx(1 / 3, abs=1e-3))
    assert longest_key([_row(4)]) is None


def test_items_from_the_same_marks_are_near_duplicates() -> None:
    rows = [_row(1, marks=frozenset({5, 6})), _row(2, marks=frozenset({6, 5})), _row(3, marks=frozenset({7}))]
    assert near_duplicates(rows) == (1, 2)


def _set(n: int, *, leak: bool, seed: int = 0) -> list[Row]:
    """Items over 4 scenes with keys at random positions; with `leak`, the question's last word names
    the key's position (as a careless phrasing could)."""
    rng = random.Random(seed)
    words = ["alpha", "bravo", "charlie", "delta"]
    rows = []
    for i in range(n):
        key = rng.randrange(4)
        word = words[key] if leak else rng.choice(words)
        rows.append(_row(i, scene=i % 4, question=f"Which region is it, {word}?", answer=LETTERS[key]))
    return rows


def test_a_blind_model_finds_wording_that_gives_the_key_away() -> None:
    blind = blind_baseline(_set(120, leak=True))
    assert blind is not None and blind.accuracy > 0.9 and blind.z > 2.33
    assert (blind.chance, blind.n_test, blind.folds) == (0.25, 120, 4)
    [report] = audit(_set(120, leak=True))
    assert any("text-only model" in f for f in report.flags)


def test_a_blind_model_sits_near_chance_on_wording_that_says_nothing() -> None:
    blind = blind_baseline(_set(200, leak=False))
    assert blind is not None and abs(blind.accuracy - 0.25) < 0.1 and blind.z < 2.33
    [report] = audit(_set(200, leak=False))
    assert not any("text-only" in f for f in report.flags)


def test_the_blind_model_needs_several_scenes_and_enough_items() -> None:
    assert blind_baseline([_row(i, scene=1) for i in range(40)]) is None
    assert blind_baseline([_row(i, scene=i % 2) for i in range(10)]) is None


def test_effort_is_the_median_per_task_of_items_with_time() -> None:
    pairs = [("zone_counting", 60.0), ("zone_counting", 120.0), ("zone_counting", 600.0), ("zone_counting", 0.0)]
    [effort] = effort_by_task(pairs)
    assert (effort.items, effort.median_min, effort.total_h) == (3, 2.0, 0.22)


def _yes_no(i: int, truth: bool, polarity: str) -> Row:
    answer = "yes" if truth == (polarity == "positive") else "no"
    return Row(i, "target_visibility", 1 + i % 3, "Is it seen?", ["yes", "no"], answer, "yes_no", frozenset({i}),
               "Is it seen?", truth)  # fmt: skip


def test_balanced_keys_on_an_uneven_fact_are_flagged_by_the_facts_prior() -> None:
    # given 40 yes/no items whose keys are balanced by asking some questions the other way round,
    # but whose fact holds for 32 of them
    rows = [_yes_no(i, i < 32, "positive" if i % 2 else "negative") for i in range(40)]
    [report] = audit(rows)
    assert sum(r.answer == "yes" for r in rows) == 20
    # then the keys look fair, while the prior the questions rest on is reported and flagged
    assert report.positions is not None and report.positions.p_mode == 0.5
    assert report.truth_share == 0.8
    assert any("the fact holds in 80% of items" in f for f in report.flags)
    # and an even split is not
    [fair] = audit([_yes_no(i, i % 2 == 0, "positive" if i % 3 else "negative") for i in range(40)])
    assert fair.truth_share == 0.5 and not any("the fact" in f for f in fair.flags)


@pytest.mark.django_db
def test_the_command_and_the_page_report_each_task(admin: Any, annotator: Any, client: Any) -> None:
    # given target visibility items that always answer "yes", one pair from the same marks
    scenes = [SceneFactory(), SceneFactory()]
    for k in range(6):
        provenance = {"phrasing_text": "Is the {region} seen?", "polarity": "positive"}
        ItemFactory(scene=scenes[k % 2], author=annotator, provenance=provenance)
    out = StringIO()
    call_command("audit_items", "--json", stdout=out)
    [report] = [json.loads(line) for line in out.getvalue().splitlines()]
    assert (report["task"], report["items"], report["n_options"]) == (Item.Task.TARGET_VISIBILITY, 6, 2)
    assert report["positions"]["p_mode"] == 1.0 and report["phrasings"] == [["Is the {region} seen?", 6]]
    assert any("one position in 100%" in f for f in report["flags"])
    assert report["truth_share"] == 1.0  # every one asked the positive way with the key "yes"
    with pytest.raises(CommandError, match="flagged: target_visibility"):
        call_command("audit_items", "--strict", stdout=StringIO())
    table = StringIO()
    call_command("audit_items", stdout=table)
    assert "target_visibility" in table.getvalue() and "! the key sits at one position" in table.getvalue()
    # the page is the admins'
    client.force_login(annotator)
    assert client.get("/compiling/audit/").status_code == 403
    client.force_login(admin)
    page = client.get("/compiling/audit/").content.decode()
    assert 'data-task="target_visibility"' in page and "the key sits at one position" in page


@pytest.mark.django_db
def test_the_effort_page_shows_the_median_minutes_per_task(admin: Any, annotator: Any, client: Any) -> None:
    scene = SceneFactory()
    for seconds in (60, 180, 600, 0):
        ItemFactory(scene=scene, author=annotator, active_seconds=seconds)
    client.force_login(annotator)
    assert client.get("/compiling/effort/").status_code == 403
    client.force_login(admin)
    page = client.get("/compiling/effort/").content.decode()
    row = page[page.index('data-task="target_visibility"') :]
    assert '<td class="num">3</td>' in row and 'data-field="median">3.00' in row
