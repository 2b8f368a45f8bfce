"""The facts a task needs, set in Chromium inside the Items panel where the task asks for them:
an event's sentence, an occlusion relation worded with both regions' names, an interaction
class, a stated next action, a time from the video cursor; a bad count refused at its field; then
the items compiled from what was typed."""

from __future__ import annotations

from playwright.sync_api import expect

from annotator.models import Item, Mark, Scene
from tests.e2e.test_workspace_items import _box, _clear, _compile, _pick, _wait_ready
from tests.e2e.workspace_helpers import _console_errors, _mark, _open, _polygon, _saved, _seek

T = Item.Task


def _field(task: str, key: str) -> str:
    return f"#task-list li[data-task={task}] [data-testid=fact-{key}]"


def _set(page, task: str, key: str, value: str) -> None:  # type: ignore[no-untyped-def]
    """Type into (or choose in) a task's fact field and leave it, as a person does."""
    selector = _field(task, key)
    page.wait_for_selector(selector)
    if page.eval_on_selector(selector, "n => n.tagName") == "SELECT":
        page.select_option(selector, value)
    else:
        page.fill(selector, value)
        page.press(selector, "Tab")
    _saved(page)


def _facts(mark: Mark) -> dict:
    mark.refresh_from_db()
    return mark.facts


def test_task_facts_are_set_in_the_items_panel_and_make_the_items(scene: Scene, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    # given marks with no facts: a van at 2 s, a house and a tree, a pedestrian and the central island,
    # a car's timed trajectory heading for the island
    island = _polygon(scene)
    van = _mark(scene, "point", {"type": "Point", "coordinates": [700, 640]}, "van", 2.0)
    house = _mark(scene, "polygon", _box(300, 300, 420, 400), "house", 1.0, 2.0)
    tree = _mark(scene, "polygon", _box(430, 300, 520, 400), "tree", 1.0, 2.0)
    walker = _mark(scene, "point", {"type": "Point", "coordinates": [960, 540]}, "pedestrian", 3.0)
    car = _mark(scene, "polyline", {"type": "LineString", "coordinates": [[200, 900], [500, 760], [800, 620]]}, "car",
                1.0, 3.0, vertex_times=[1.0, 2.0, 3.0])  # fmt: skip
    page = login("ann")
    console = _console_errors(page)
    _open(page, scene.id)

    # picking the van: Event Geo-localization asks for the event in its row, open, named as the question names it
    _pick(page, van.id)
    row = "#task-list li[data-task=event_geolocalization]"
    page.wait_for_selector(f"{row} details.it-facts[open]")
    assert "What happens here · van" in page.inner_text(f"{row} .it-fact label")
    assert page.locator(f"{row} .it-fact.unset").count() == 1 and "1 to set" in page.inner_text(f"{row} summary")
    page.locator("#compose").scroll_into_view_if_needed()
    screenshot(page, "01-event-asked")
    # typing a key in the field starts no tool
    page.click(_field(T.EVENT_GEOLOCALIZATION, "event"))
    page.keyboard.type("the van stops at the kerb")
    assert page.evaluate("Skymark.workspace.ws.tool") == "none"
    page.keyboard.press("Tab")
    _saved(page)
    _compile(page, T.EVENT_GEOLOCALIZATION)
    assert _facts(van) == {"event": "the van stops at the kerb"}
    event_item = Item.objects.get(task=T.EVENT_GEOLOCALIZATION)
    assert "the van stops at the kerb" in event_item.question

    # two regions: one field for the pair, its choices worded with both names
    _clear(page)
    _pick(page, house.id)
    _pick(page, tree.id)
    page.wait_for_selector(_field(T.OCCLUSION_ATTRIBUTION, "occlusion"))
    choices = f"{_field(T.OCCLUSION_ATTRIBUTION, 'occlusion')} option"
    options = page.eval_on_selector_all(choices, "os => os.map(o => o.textContent)")
    assert options[1:] == ["the house hides part of the tree", "the tree hides part of the house",
                           "each hides part of the other at some point", "neither hides the other"]  # fmt: skip
    _set(page, T.OCCLUSION_ATTRIBUTION, "occlusion", "hidden_by")
    page.locator("#task-list li[data-task=occlusion_attribution]").scroll_into_view_if_needed()
    screenshot(page, "02-occlusion-set")
    _compile(page, T.OCCLUSION_ATTRIBUTION)
    assert _facts(house) == {"occlusion": [{"other": tree.id, "relation": "hidden_by"}]}
    assert Item.objects.get(task=T.OCCLUSION_ATTRIBUTION).answer == "the tree hides part of the house"
    # the house and the island: a second relation joins the house's list, the first one stays
    _clear(page)
    _pick(page, house.id)
    _pick(page, island.id)
    _set(page, T.OCCLUSION_ATTRIBUTION, "occlusion", "none")
    _compile(page, T.OCCLUSION_ATTRIBUTION)
    assert _facts(house) == {"occlusion": [{"other": tree.id, "relation": "hidden_by"},
                                           {"other": island.id, "relation": "none"}]}  # fmt: skip
    assert Item.objects.filter(task=T.OCCLUSION_ATTRIBUTION).count() == 2
    # the house's card and the mark editor word both relations with the other regions' labels
    relations = f"hidden by tree #{tree.id}, neither hides nor is hidden by {island.label} #{island.id}"
    card = page.locator(f"#marks-list li[data-mark-id='{house.id}'] .mk-facts")
    expect(card).to_have_text(f"occlusion: {relations}")
    page.click(f"#marks-list li[data-mark-id='{house.id}'] .mk-label")
    expect(page.locator("#fact-others")).to_have_text(f"Also set (in Make items): occlusion: {relations}")
    screenshot(page, "02b-occlusion-on-the-card")

    # a point target: the interaction class is the annotator's; a count that is not whole is refused at its field
    _clear(page)
    _pick(page, walker.id)
    _pick(page, island.id)
    _set(page, T.REGION_INTERACTION, "interaction", "enters")
    _set(page, T.REGION_REACHABILITY, "future_action", "turns left at the junction")
    _set(page, T.REGION_REACHABILITY, "reaches", "no")
    _compile(page, T.REGION_INTERACTION)
    _compile(page, T.REGION_REACHABILITY)
    assert _facts(walker) == {"interaction": "enters", "future_action": "turns left at the junction", "reaches": False}
    assert Item.objects.get(task=T.REGION_INTERACTION).provenance["interaction"] == "enters"

    # the trajectory: the time Relative Direction asks about comes from the video cursor ("now")
    _clear(page)
    _pick(page, car.id)
    _pick(page, island.id)
    _wait_ready(page, T.RELATIVE_DIRECTION)
    _seek(page, 2.0)
    # optional facts wait folded under the ready task
    page.click("#task-list li[data-task=relative_direction] details.it-facts summary")
    page.click("#task-list li[data-task=relative_direction] [data-fact-now]")
    _saved(page)
    assert _facts(car) == {"at_s": 2.0}
    _compile(page, T.RELATIVE_DIRECTION)
    assert Item.objects.get(task=T.RELATIVE_DIRECTION).provenance["time_s"] == 2.0

    # a bad value never leaves the page: the field says why, the mark keeps its facts
    _clear(page)
    _pick(page, island.id)
    page.wait_for_selector(_field(T.ZONE_COUNTING, "count"))
    page.fill(_field(T.ZONE_COUNTING, "count"), "2.5")
    page.press(_field(T.ZONE_COUNTING, "count"), "Tab")
    error = "#task-list li[data-task=zone_counting] .it-fact[data-field=count] .field-error"
    page.wait_for_function(f"document.querySelector('{error}').textContent.includes('whole number')")
    assert _facts(island) == {"visible": True}
    page.locator("#task-list li[data-task=zone_counting]").scroll_into_view_if_needed()
    screenshot(page, "03-count-refused")
    assert page.js_errors == [] and console == []
