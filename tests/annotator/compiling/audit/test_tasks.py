"""annotator.compiling.audit.tasks, the audit_items command and the audit page: per-task figures
and flags on sets built to be fair and sets built to leak, small ones included."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.utils.html import escape

from annotator.compiling.audit import Row, audit
from annotator.models import Item, Mark
from tests.factories import ItemFactory, MarkFactory, SceneFactory

MOVES = ["enters", "passes by", "stays away"]


def _yes_no(i: int, truth: bool, polarity: str) -> Row:
    answer = "yes" if truth == (polarity == "positive") else "no"
    return Row(i, "target_visibility", 1 + i % 3, "Is it seen?", ["yes", "no"], answer, "yes_no", frozenset({i}),
               "Is it seen?", truth, polarity)  # fmt: skip


def test_balanced_keys_on_an_uneven_fact_are_flagged_by_prior_and_wording() -> None:
    # given 40 yes/no items whose keys are balanced by asking some questions the other way round,
    # but whose fact holds for 32 of them
    rows = [_yes_no(i, i < 32, "negative" if i < 20 or i >= 32 else "positive") for i in range(40)]
    [report] = audit(rows)
    assert sum(r.answer == "yes" for r in rows) == 20
    # then the keys look fair, while the prior and the wording are reported and flagged
    assert report.positions is not None and report.positions.p_mode == 0.5
    assert report.prior is not None and report.prior.share == 0.8
    assert any("the fact holds in 32 of 40 items" in f for f in report.flags)
    assert any(
        "negated questions are keyed 'no' in 20 of 28, positive ones 'yes' in 12 of 12" in f for f in report.flags
    )
    # and an even split is not
    [fair] = audit([_yes_no(i, i % 2 == 0, "positive" if i % 4 < 2 else "negative") for i in range(40)])
    assert fair.prior is not None and fair.prior.share == 0.5 and fair.flags == []


def test_region_interaction_keyed_stays_away_11_of_18_is_flagged() -> None:
    # given options shuffled per item, "stays away" the key in 11 of 18
    rows = []
    for i in range(18):
        options = MOVES[i % 3 :] + MOVES[: i % 3]
        answer = "stays away" if i < 11 else [m for m in MOVES if m != "stays away"][i % 2]
        rows.append(Row(i, "region_interaction", i % 4, f"What does car {i} do?", options, answer, "multiple_choice",
                        frozenset({i}), ""))  # fmt: skip
    [report] = audit(rows)
    assert report.fixed_options is None
    assert "'stays away' is the key in 11 of the 18 items offering it (chance 33%, p = 0.0433)" in report.flags


def test_with_options_in_one_order_the_text_is_named_at_its_position_once() -> None:
    rows = [Row(i, "region_interaction", i % 4, f"What does car {i} do?", MOVES,
                "stays away" if i < 11 else MOVES[i % 2], "multiple_choice", frozenset({i}), "")
            for i in range(18)]  # fmt: skip
    [report] = audit(rows)
    assert report.fixed_options == MOVES and report.texts == []
    assert "the key is at C ('stays away') in 61% of 18 items (p = 0.0433)" in report.flags
    assert not any("offering it" in f for f in report.flags)


@pytest.mark.django_db
def test_the_command_and_the_page_report_each_task(admin: Any, annotator: Any, client: Any) -> None:
    # given 6 target visibility items that always answer "yes", two from the same mark
    scenes = [SceneFactory(), SceneFactory()]
    region = MarkFactory(scene=scenes[0], author=annotator)
    for k in range(6):
        provenance = {"phrasing_text": "Is the {region} seen?", "polarity": "positive"}
        marks = [region] if k < 2 else [MarkFactory(scene=scenes[k % 2], author=annotator)]
        ItemFactory(scene=scenes[k % 2], author=annotator, provenance=provenance, marks=marks)
    out = StringIO()
    call_command("audit_items", "--json", stdout=out)
    [report] = [json.loads(line) for line in out.getvalue().splitlines()]
    assert (report["task"], report["items"], report["n_options"]) == (Item.Task.TARGET_VISIBILITY, 6, 2)
    assert report["positions"]["p_mode"] == 1.0 and report["phrasings"] == [["Is the {region} seen?", 6]]
    assert report["positions"]["p_value"] == pytest.approx(2 * 0.5**6, abs=1e-4)
    assert any("the key is at A ('yes') in 100% of 6 items" in f for f in report["flags"])
    assert report["prior"] == {"holds": 6, "n": 6, "p_value": pytest.approx(2 * 0.5**6, abs=1e-4)}
    assert (report["duplicate_groups"], report["duplicate_items"]) == (1, 2)
    with pytest.raises(CommandError, match="flagged: target_visibility"):
        call_command("audit_items", "--strict", stdout=StringIO())
    table = StringIO()
    call_command("audit_items", stdout=table)
    text = table.getvalue()
    assert "target_visibility" in text and "! the key is at A ('yes') in 100% of 6 items" in text
    assert "0.000" in text and "-0.000" not in text  # entropy of one position, never a negative zero
    # the page is the admins'
    client.force_login(annotator)
    assert client.get("/compiling/audit/").status_code == 403
    client.force_login(admin)
    page = client.get("/compiling/audit/").content.decode()
    assert 'data-task="target_visibility"' in page and escape("the key is at A ('yes') in 100% of 6 items") in page
    assert "-0.000" not in page and "p &lt; 0.05" in page


@pytest.mark.django_db
def test_items_with_swapped_roles_are_not_duplicates_in_the_command(annotator: Any) -> None:
    # given two Trajectory Matching items from the same two tracks, target and decoy swapped
    scene = SceneFactory()
    track = {"type": "LineString", "coordinates": [[10, 10], [50, 60], [90, 90]]}
    t1, t2 = (MarkFactory(scene=scene, author=annotator, kind=Mark.Kind.POLYLINE, geometry=track) for _ in range(2))
    for marks in ([t1, t2], [t2, t1]):
        ItemFactory(scene=scene, author=annotator, task=Item.Task.TRAJECTORY_MATCHING, options=["A", "B", "C", "D"],
                    answer="A", answer_format=Item.AnswerFormat.MULTIPLE_CHOICE, marks=marks)  # fmt: skip
    out = StringIO()
    call_command("audit_items", "--json", stdout=out)
    [report] = [json.loads(line) for line in out.getvalue().splitlines()]
    assert (report["items"], report["duplicate_items"]) == (2, 0)


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
