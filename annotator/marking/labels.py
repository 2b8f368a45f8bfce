"""What a mark may be called: its scene's project's label set (the default project's comes from
SKYMARK_LABELS, or the built-in set below)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError

from annotator.models import Project

# Targets and places that cross-view questions are asked about (LinkBench-style tasks: vehicles and
# people as targets; roads, junctions, buildings and land cover as regions and landmarks).
DEFAULT_LABELS = [
    "car", "van", "truck", "bus", "motorcycle", "bicycle", "boat",
    "pedestrian", "cyclist", "person group",
    "building", "house", "bridge", "pier", "tower", "water tower", "lamppost",
    "road", "lane", "roundabout", "central island", "intersection", "parking lot", "sidewalk", "crosswalk",
    "field", "park", "lake", "pond", "river", "beach", "shoreline", "forest", "tree",
    "landmark", "other",
]  # fmt: skip


def label_set(*, project: Project | None = None) -> list[str]:
    """The names of a project's labels; without a project, the configured set."""
    if project is not None:
        return [row["name"] for row in project.labels]
    return list(getattr(settings, "SKYMARK_LABELS", None) or DEFAULT_LABELS)


def label_set_of_scene(*, scene_id: Any) -> list[str]:
    """The label names of the scene's project (one query)."""
    rows = Project.objects.filter(scenes=scene_id).values_list("labels", flat=True).first()
    return [row["name"] for row in rows or []]


def label_clean(label: str, *, names: list[str]) -> str:
    """The label as the set `names` spells it; a field error naming a few choices otherwise."""
    wanted = " ".join(label.split()).lower()
    for known in names:
        if known.lower() == wanted:
            return known
    sample = ", ".join(names[:8])
    raise ValidationError({"label": f"{label.strip()!r} is not in the project's label set ({sample}, ...)"})
