"""Reads of marks, scoped to the user asking (annotator.access.scopes)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404

from annotator.access.scopes import marks_visible
from annotator.models import Mark, Scene


def marks_for_scene(*, user: Any, scene: Scene) -> QuerySet[Mark]:
    return marks_visible(user=user, qs=Mark.objects.filter(scene=scene).select_related("satellite_image"))


def mark_get(*, user: Any, mark_id: int) -> Mark:
    """One mark the user may see, with its image (editing validates against its size and the
    answer carries WGS84 coordinates); 404 for the rest."""
    mark = marks_visible(user=user, qs=Mark.objects.select_related("satellite_image")).filter(id=mark_id).first()
    if mark is None:
        raise Http404("no such mark")
    return mark
