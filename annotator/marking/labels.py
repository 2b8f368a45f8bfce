"""The project's label set: what a mark may be called. Configured with SKYMARK_LABELS."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError

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


def label_set() -> list[str]:
    return list(getattr(settings, "SKYMARK_LABELS", None) or DEFAULT_LABELS)


def label_clean(label: str) -> str:
    """The label as the set spells it; a field error naming a few choices otherwise."""
    wanted = " ".join(label.split()).lower()
    for known in label_set():
        if known.lower() == wanted:
            return known
    sample = ", ".join(label_set()[:8])
    raise ValidationError({"label": f"{label.strip()!r} is not in the project's label set ({sample}, ...)"})
