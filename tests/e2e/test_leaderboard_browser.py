"""The leaderboard in Chromium: a release with every task has more columns than the page is wide;
the table scrolls sideways inside its card instead of being cut off, and the heading counts the
results shown."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from annotator.compiling.catalog import TASK_DIMENSION
from annotator.models import Item
from review.releasing.services import release_build
from tests.factories import ItemFactory

T, F = Item.Task, Item.AnswerFormat
NUMBER_TASKS = {T.ZONE_COUNTING: (F.NUMBER, "7"), T.TEMPORAL_GROUNDING: (F.TIMESTAMP, "4.0")}
YES_NO_TASKS = {T.TARGET_VISIBILITY, T.REGION_REACHABILITY}


def _approved(task: str) -> Item:
    if task in NUMBER_TASKS:
        fmt, key = NUMBER_TASKS[task]
        return ItemFactory(state=Item.State.APPROVED, task=task, options=[], answer=key, answer_format=fmt)
    if task in YES_NO_TASKS:
        return ItemFactory(state=Item.State.APPROVED, task=task)
    return ItemFactory(
        state=Item.State.APPROVED, task=task, options=["north", "south", "east", "west"], answer="north",
        answer_format=F.MULTIPLE_CHOICE,
    )  # fmt: skip


def test_a_wide_leaderboard_scrolls_and_counts_its_results(make_user, login, screenshot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # given a frozen release with an item of each task
    admin = make_user("ada", "admin")
    for task in T.values:
        _approved(task)
    release = release_build(version="1.0", user=admin)
    items = [entry.item for entry in release.entries.select_related("item")]
    assert len({i.task for i in items}) >= 10  # (the release may leave out what its balance rules refuse)
    predictions = tmp_path / "model.jsonl"
    predictions.write_text("".join(json.dumps({"id": i.uid, "answer": i.answer}) + "\n" for i in items))
    page = login("ada")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto("/releases/1.0/leaderboard/")
    assert page.inner_text("#leaderboard").count("No predictions scored yet") == 1
    assert "Results (0)" in page.inner_text("main")

    # when a model's predictions are scored
    page.fill("#submission-name", "all-right")
    page.set_input_files("#submission-file", str(predictions))
    page.click("#submission-score")
    page.wait_for_selector("#leaderboard tr[data-submission]")
    screenshot(page, "01-scored", full_page=True)

    # then the heading counts the one result, and every column is reachable by scrolling the table
    assert "Results (1)" in page.inner_text("main") and "Results (0)" not in page.inner_text("main")
    box = page.evaluate(
        """() => { const s = document.querySelector('#leaderboard').parentElement, c = s.closest('.card');
          const r = s.getBoundingClientRect(), cr = c.getBoundingClientRect();
          return {scroll: s.scrollWidth, client: s.clientWidth, overflow: getComputedStyle(s).overflowX,
                  right: r.right, cardRight: cr.right, page: document.documentElement.scrollWidth,
                  viewport: window.innerWidth}; }"""
    )
    assert box["overflow"] == "auto"  # wider than the card, it scrolls
    assert box["right"] <= box["cardRight"] and box["page"] <= box["viewport"]  # nothing sticks out of the page
    log = page.locator("#leaderboard tr[data-submission] a", has_text="per-item log")
    log.scroll_into_view_if_needed()
    assert log.is_visible()
    last = log.bounding_box()
    container = page.locator("#leaderboard").locator("xpath=..").bounding_box()
    assert container["x"] <= last["x"] and last["x"] + last["width"] <= container["x"] + container["width"] + 0.5
    screenshot(page, "02-scrolled-to-the-last-column", full_page=True)


def test_with_cvaa_answers_get_a_row_under_the_plain_one(make_user, login, screenshot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # given a frozen release and one predictions file answering both variants: the plain questions
    # all right, the with-CVAA ones right except the localization and relation tasks
    admin = make_user("ada", "admin")
    for task in T.values:
        _approved(task)
    release = release_build(version="1.0", user=admin)
    items = [entry.item for entry in release.entries.select_related("item")]
    wrong = {"localization", "relation"}
    lines = [{"id": i.uid, "answer": i.answer} for i in items]
    lines += [
        {"id": i.uid, "answer": "no idea" if TASK_DIMENSION[i.task] in wrong else i.answer, "variant": "cvaa"}
        for i in items
    ]
    predictions = tmp_path / "model.jsonl"
    predictions.write_text("".join(json.dumps(x) + "\n" for x in lines))
    page = login("ada")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto("/releases/1.0/leaderboard/")

    # when it is scored
    page.fill("#submission-name", "model-a")
    page.set_input_files("#submission-file", str(predictions))
    page.click("#submission-score")
    expect(page.locator("#leaderboard tr.cvaa-row")).to_have_count(1)

    # then the with-CVAA row sits right under the plain one, with its score and the difference
    plain = page.locator("#leaderboard tr[data-submission]")
    cvaa = page.locator("#leaderboard tr.cvaa-row")
    expect(plain.locator("td").nth(2)).to_contain_text("100 %")
    tasks = {i.task for i in items}
    share = sum(TASK_DIMENSION[t] not in wrong for t in tasks) / len(tasks)
    expect(cvaa.locator("td").nth(1)).to_contain_text("with CVAA")
    expect(cvaa.locator("td").nth(2)).to_contain_text(f"{round(100 * share)} %")
    expect(cvaa.locator("[data-field=difference]")).to_contain_text(f"{100 * (share - 1):+.1f} pts")
    following = page.evaluate(
        "() => document.querySelector('#leaderboard tr[data-submission]').nextElementSibling.className"
    )
    assert following == "cvaa-row"
    page.locator("#leaderboard").scroll_into_view_if_needed()
    screenshot(page, "01-plain-and-with-cvaa", full_page=True)
