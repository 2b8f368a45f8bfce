"""The Items panel in Chromium: marks picked in order, the tasks they make (and what the others
miss), a preview of the item and its model view before saving, items of six tasks compiled, their
model views looked at, a stale item compiled again in one click, and compiling all."""

from __future__ import annotations

from annotator.models import Item, Scene
from tests.e2e.workspace_helpers import STATE, _console_errors, _mark, _open, _polygon

T = Item.Task


def _box(x0: float, y0: float, x1: float, y1: float) -> dict:
    return {"type": "Polygon", "coordinates": [[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]]}


def _pick(page, mark_id: int) -> None:  # type: ignore[no-untyped-def]
    page.click(f"#marks-list li[data-mark-id='{mark_id}'] [data-action=pick]")


def _ready(page) -> set[str]:  # type: ignore[no-untyped-def]
    return set(page.eval_on_selector_all("#task-list li.ready", "els => els.map(li => li.dataset.task)"))


def _wait_ready(page, task: str) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_selector(f"#task-list li.ready[data-task={task}]")


def _compile(page, task: str) -> None:  # type: ignore[no-untyped-def]
    before = page.locator("#items-list > li").count()
    _wait_ready(page, task)
    page.click(f"#task-list li[data-task={task}] button[data-action=compile]")
    page.wait_for_function(f"document.querySelectorAll('#items-list > li').length > {before}")


def _clear(page) -> None:  # type: ignore[no-untyped-def]
    page.click("#pick-clear")
    page.wait_for_function("document.querySelectorAll('#task-list li.ready').length === 0")


def test_items_of_several_tasks_from_the_panel_with_their_model_views(scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    # given marks on the Saro frame: the central island (2-6 s), a tower and a lake first seen at 1 s
    # and 5 s, a car's timed trajectory and a pedestrian north of the island
    island = _polygon(scene)
    tower = _mark(scene, "polygon", _box(300, 300, 420, 400), "tower", 1.0, 2.0, facts={"visible": True})
    lake = _mark(scene, "polygon", _box(1400, 700, 1560, 820), "lake", 5.0, 7.0, facts={"visible": True})
    # (the car drives in from the north-west arm: the frame is black off the roads, and wrong tracks
    # are drawn only where it has data)
    car = _mark(scene, "polyline", {"type": "LineString", "coordinates": [[200, 150], [600, 400], [1000, 700]]}, "car",
                1.0, 3.0, vertex_times=[1.0, 2.0, 3.0])  # fmt: skip
    walker = _mark(scene, "point", {"type": "Point", "coordinates": [960, 200]}, "pedestrian", 2.0)
    page = login("ann")
    console = _console_errors(page)
    _open(page, scene.id)

    # with nothing picked, every task says what it needs
    page.wait_for_selector("#task-list li[data-task=zone_counting]")
    assert page.locator("#task-list > li").count() == 12 and _ready(page) == set()
    assert "needs" in page.inner_text("#task-list li[data-task=spatiotemporal_ordering] .why")

    # picking the island makes the tasks one region makes; the others say what is missing
    _pick(page, island.id)
    _wait_ready(page, T.TARGET_VISIBILITY)
    assert _ready(page) == {T.TARGET_VISIBILITY, T.SCENE_ASSOCIATION, T.TEMPORAL_GROUNDING}
    assert "needs the target" in page.inner_text("#task-list li[data-task=relative_direction] .why")
    assert page.inner_text("#picked").startswith("central island")
    page.locator("#compose").scroll_into_view_if_needed()
    screenshot(page, "01-island-picked")

    # a preview shows the question, the options and the model view (A-D drawn, and each option), nothing saved
    page.click("#task-list li[data-task=scene_association] button[data-action=preview]")
    page.wait_for_selector("#preview-overlay:not(.hidden)")
    page.wait_for_function("document.getElementById('preview-image').naturalWidth > 0")
    assert "2.0 s" in page.inner_text("#preview-question")
    assert page.locator("#preview-options li").count() == 4 and page.locator("#preview-options li.key").count() == 1
    assert page.locator("#preview-option-images img").count() == 4
    assert "video from 2.0 to 6.0 s" in page.inner_text("#preview-meta")
    # tools do not start behind the dialog
    page.keyboard.press("g")
    assert page.evaluate("Skymark.workspace.ws.tool") == "none"
    screenshot(page, "02-preview-scene-association")
    assert Item.objects.count() == 0
    page.click("#preview-save")
    page.wait_for_selector("#preview-overlay.hidden", state="attached")
    page.wait_for_selector("#items-list li[data-state=draft]")
    _compile(page, T.TARGET_VISIBILITY)
    _compile(page, T.TEMPORAL_GROUNDING)

    # the order of the picks is the order of the parts: the pedestrian, then the island
    _clear(page)
    _pick(page, walker.id)
    _pick(page, island.id)
    _compile(page, T.RELATIVE_DIRECTION)
    _clear(page)
    _pick(page, car.id)
    _compile(page, T.TRAJECTORY_MATCHING)
    _clear(page)
    for mark in (island, tower, lake):
        _pick(page, mark.id)
    _compile(page, T.SPATIOTEMPORAL_ORDERING)

    # six items of six tasks, each with its model view, drawn by the job and served
    items = {it.task: it for it in Item.objects.filter(scene=scene)}
    assert set(items) == {T.SCENE_ASSOCIATION, T.TARGET_VISIBILITY, T.TEMPORAL_GROUNDING, T.RELATIVE_DIRECTION,
                          T.TRAJECTORY_MATCHING, T.SPATIOTEMPORAL_ORDERING}  # fmt: skip
    assert items[T.RELATIVE_DIRECTION].answer == "north"
    assert items[T.SPATIOTEMPORAL_ORDERING].answer == "the tower, then the central island, then the lake"
    views = "[...document.querySelectorAll('#items-list img[data-testid=model-view]')]"
    page.wait_for_function(f"{views}.filter(i => i.naturalWidth > 0).length === 6", timeout=30000)
    url = page.get_attribute(f"#items-list li[data-item-id='{items[T.TRAJECTORY_MATCHING].id}'] a.it-view", "href")
    kind = page.evaluate(f"fetch('{url}').then(r => r.headers.get('Content-Type'))")
    assert kind == "image/jpeg"
    page.locator("#items-list").scroll_into_view_if_needed()
    screenshot(page, "03-six-items")
    view = page.context.new_page()
    view.goto(url)
    screenshot(view, "04-model-view-trajectory-matching")
    view.close()
    # the time spent went with the items
    assert Item.objects.filter(scene=scene, active_seconds__gt=0).exists()

    # typing in a field never starts a tool
    page.click("#mark-label")
    page.keyboard.type("pedestrian")
    assert page.evaluate("Skymark.workspace.ws.tool") == "none"
    page.fill("#mark-label", "")
    page.keyboard.press("Escape")

    # changing the island makes the drafts built from it stale, with the reason; one click compiles again
    page.select_option(f"#marks-list li[data-mark-id='{island.id}'] select[data-action=visible]", "no")
    page.wait_for_function(f"{STATE} === 'saved'")
    page.wait_for_selector("#items-list li[data-stale='1']")
    stale = f"#items-list li[data-item-id='{items[T.TARGET_VISIBILITY].id}']"
    page.wait_for_selector(f"{stale} [data-testid=stale-reason]")
    assert f"mark #{island.id} (central island) changed (version 1 → 2)" in page.inner_text(
        f"{stale} [data-testid=stale-reason]"
    )
    page.locator(stale).scroll_into_view_if_needed()
    screenshot(page, "05-stale")
    page.click(f"{stale} button[data-action=recompile]")
    page.wait_for_selector(stale, state="detached")
    fresh = Item.objects.filter(scene=scene, task=T.TARGET_VISIBILITY).get()
    assert (fresh.stale, fresh.provenance["marks"][0]["version"]) == (False, 2)

    # compiling all makes what is left, and says so, listing each refused combination and why
    with page.expect_response(lambda r: r.url.endswith("/items/compile-all/")) as answer:
        page.click("#compile-all")
    page.wait_for_function("document.getElementById('status').textContent.startsWith('Compiled')")
    assert Item.objects.filter(scene=scene).count() > 6
    refusals = [r for t in answer.value.json()["tasks"] for r in t["refusals"]]
    assert refusals  # the island is never seen now: no first sighting, no ordering with it
    lines = page.locator("#compile-refusals li")
    assert lines.count() == len(refusals)
    first = refusals[0]
    text = lines.nth(0).inner_text()
    assert text.endswith(first["reason"]) and f"{first['marks'][0]['name']} (#{first['marks'][0]['id']})" in text
    page.locator("#items-list").scroll_into_view_if_needed()
    screenshot(page, "06-compiled-all")
    assert page.js_errors == [] and console == []
