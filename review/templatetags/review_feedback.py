"""Template tags through which annotator pages show what review said, without the annotator
app importing review (the flow runs annotator -> review, never back)."""

from __future__ import annotations

from typing import Any

from django import template

from annotator.compiling.selectors import items_for_user
from annotator.models import Item, Scene
from review.reviewing.selectors import feedback_for_items

register = template.Library()


@register.simple_tag
def rejection_feedback(*, scene: Scene, user: Any) -> list[dict[str, Any]]:
    """Reasons and comments on the user's rejected items of this scene (no reviewer names)."""
    rejected = items_for_user(user=user, scene_id=scene.id).filter(state=Item.State.REJECTED, author=user)
    return feedback_for_items(items=list(rejected))
