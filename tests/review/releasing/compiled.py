"""Approved items as the flow makes them for release tests: compiled from marks through the compile
service (single compiles or a scene's compile-all batch), model views rendered for real, approved."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from annotator.compiling.balance import reorder, swap_order
from annotator.compiling.modelview import model_view_render
from annotator.models import Item, ModelView
from review.models import Release


def key_at(items: list[Item], position: int) -> None:
    """Move every item's key to `position` (as a seed-0 batch in every scene did): options, answer,
    lettered candidates, as compiling would have made them. Before their views are rendered."""
    for item in items:
        order = swap_order(len(item.options), item.options.index(item.answer), position)
        candidates = item.provenance.get("candidates")
        options, answer, moved = reorder(item.options, item.answer, candidates, order)
        provenance = {**item.provenance, "key_position": position}
        if moved is not None:
            provenance["candidates"] = moved
        Item.objects.filter(id=item.id).update(options=options, answer=answer, provenance=provenance)


def render_and_approve(items: list[Item]) -> list[Item]:
    """Render each item's model view here (as the worker would), then approve it."""
    for view in ModelView.objects.filter(item__in=items):
        model_view_render(view_id=view.id)
    assert set(ModelView.objects.filter(item__in=items).values_list("state", flat=True)) == {"succeeded"}
    # the lifecycle's moves (the database allows no other): submitted, then approved
    for state in (Item.State.IN_REVIEW, Item.State.APPROVED):
        Item.objects.filter(id__in=[i.id for i in items]).update(state=state)
    return list(Item.objects.filter(id__in=[i.id for i in items]).order_by("id"))


def root_of(release: Release, media_root: Path) -> Path:
    return media_root / release.root


def records_of(release: Release, media_root: Path, name: str = "items.jsonl") -> list[dict[str, Any]]:
    path = root_of(release, media_root) / name
    return [json.loads(line) for line in path.read_text().splitlines()]


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
