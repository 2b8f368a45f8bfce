"""Shared steps for the workspace's browser tests: marks made on the server, and the page driven
in image pixels and video time."""

from __future__ import annotations

from annotator.compiling.lifecycle import item_submit
from annotator.compiling.services import item_compile
from annotator.marking.services import mark_create
from annotator.models import Mark, Scene

STATE = "document.getElementById('status').dataset.state"


def _mark(scene: Scene, kind: str, geometry: dict, label: str, t0: float, t1: float | None = None, **kw) -> Mark:  # type: ignore[no-untyped-def]
    return mark_create(
        scene=scene,
        author=scene.assignments.get().annotator,
        satellite_image=scene.satellite_images.get(),
        kind=kind,
        geometry=geometry,
        label=label,
        time_start=t0,
        time_end=t1,
        **kw,
    )


def _polygon(scene: Scene, label: str = "central island", t0: float = 2.0, t1: float | None = 6.0) -> Mark:
    ring = [[880, 470], [1040, 470], [1040, 610], [880, 610], [880, 470]]
    return _mark(scene, "polygon", {"type": "Polygon", "coordinates": [ring]}, label, t0, t1, facts={"visible": True})


def _open(page, scene_id: int, query: str = "") -> None:  # type: ignore[no-untyped-def]
    page.goto(f"/scenes/{scene_id}/workspace/{query}")
    page.wait_for_function("document.getElementById('workspace').dataset.ready === '1'")
    page.wait_for_function("document.getElementById('video').readyState >= 1")


def _px(page, x: float, y: float) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Page coordinates of image pixel (x, y), y down, wherever the map has put it."""
    px, py = page.evaluate(f"Skymark.workspace.pixelOf({x}, {y})")
    box = page.locator("#map").bounding_box()
    return box["x"] + px, box["y"] + py


def _click_image(page, x: float, y: float, *, double: bool = False) -> None:  # type: ignore[no-untyped-def]
    (page.mouse.dblclick if double else page.mouse.click)(*_px(page, x, y))
    page.wait_for_timeout(120)


def _drag_image(page, start: tuple[float, float], end: tuple[float, float]) -> None:  # type: ignore[no-untyped-def]
    (x0, y0), (x1, y1) = _px(page, *start), _px(page, *end)
    page.mouse.move(x0, y0)
    page.mouse.down()
    for k in range(1, 9):
        page.mouse.move(x0 + (x1 - x0) * k / 8, y0 + (y1 - y0) * k / 8)
    page.mouse.up()
    page.wait_for_timeout(150)


def _seek(page, t: float) -> None:  # type: ignore[no-untyped-def]
    page.evaluate(f"Skymark.workspace.cursor.seek({t})")
    page.wait_for_function(
        f"Math.abs(document.getElementById('video').currentTime - {t}) < 0.01 "
        "&& !document.getElementById('video').seeking"
    )
    page.wait_for_timeout(100)


def _now(page) -> float:  # type: ignore[no-untyped-def]
    return float(page.evaluate("document.getElementById('video').currentTime"))


def _saved(page) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(f"{STATE} === 'saved'")


def _api_marks(page, scene_id: int) -> list[dict]:  # type: ignore[no-untyped-def]
    return page.evaluate(f"fetch('/api/scenes/{scene_id}/marks/?limit=500').then(r => r.json()).then(b => b.results)")


def _listed(page) -> list[list[str]]:  # type: ignore[no-untyped-def]
    return page.eval_on_selector_all(
        "#marks-list li",
        "els => els.map(li => [li.dataset.markId, li.dataset.kind, li.querySelector('.mk-label').textContent, "
        "li.querySelector('.mk-meta').textContent])",
    )


def _flat(points: list[list[float]]) -> list[float]:
    return [v for p in points for v in p]


def _li(page, mark_id: int) -> str:  # type: ignore[no-untyped-def]
    return f"#marks-list li[data-mark-id='{mark_id}']"


def _select(page, mark_id: int) -> None:  # type: ignore[no-untyped-def]
    page.click(f"{_li(page, mark_id)} .mk-label")
    page.wait_for_function(f"Skymark.workspace.ws.selectedId === {mark_id}")


def _console_errors(page) -> list[str]:  # type: ignore[no-untyped-def]
    """What the page logs as console errors from now on (the browser's 404 for /favicon.ico aside)."""
    errors: list[str] = []
    page.on(
        "console", lambda msg: errors.append(msg.text) if msg.type == "error" and "favicon" not in msg.text else None
    )
    return errors


def _item_in_review(scene: Scene) -> tuple[Mark, Mark, int]:
    region = _polygon(scene)
    other = _mark(scene, "point", {"type": "Point", "coordinates": [500, 500]}, "lamppost", 1.0)
    ann = scene.assignments.get().annotator
    item = item_compile(user=ann, task="target_visibility", mark_ids=[region.id])
    item_submit(item=item, actor=ann)
    return region, other, item.id
