"""Where a comment points: one of the item's marks, and/or a time in the scene's video."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from annotator.models import Item, Mark


def anchors_clean(*, item: Item, mark_id: int | None, time_s: float | None) -> tuple[int | None, float | None]:
    """The anchors as stored; raises ValidationError naming the one that does not fit the item."""
    if mark_id is not None and not Mark.objects.filter(id=mark_id, items=item).exists():
        raise ValidationError({"anchor_mark": "the comment can only be anchored on one of the item's marks"})
    if time_s is not None:
        duration = item.scene.video.duration_s if item.scene.video_id else None
        if time_s < 0 or (duration is not None and time_s > duration + 1e-6):
            limit = f"between 0 and {duration:.2f} s" if duration is not None else "0 s or later"
            raise ValidationError({"anchor_time_s": f"the video time must be {limit}"})
    return mark_id, time_s
