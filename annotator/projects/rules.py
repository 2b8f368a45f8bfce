"""What a project's label set and task mix may hold. Pure checks: the forms, the API, the
migration and the model's default all read them here."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError

from annotator.compiling.catalog import TASK_DIMENSION

INSTANCE = "instance"
REGION = "region"
LABEL_KINDS = (INSTANCE, REGION)
# Targets the built-in set names (vehicles and people); every other built-in label is a region.
DEFAULT_INSTANCES = {
    "car", "van", "truck", "bus", "motorcycle", "bicycle", "boat", "pedestrian", "cyclist", "person group",
}  # fmt: skip
MAX_TARGET = 100_000


def default_label_rows() -> list[dict[str, str]]:
    """The label set of SKYMARK_LABELS (or the built-in one) as rows, for the default project."""
    from annotator.marking.labels import DEFAULT_LABELS

    names = list(getattr(settings, "SKYMARK_LABELS", None) or DEFAULT_LABELS)
    return [{"name": n, "kind": INSTANCE if n.lower() in DEFAULT_INSTANCES else REGION} for n in names]


def labels_clean(rows: Any) -> list[dict[str, str]]:
    """Rows of {"name", "kind"}: names trimmed, unique (ignoring case), kinds instance or region.
    Raises ValidationError on `labels` naming the first bad row."""
    if not isinstance(rows, list) or not rows:
        raise ValidationError({"labels": "give at least one label, as rows of name and kind"})
    seen: set[str] = set()
    clean = []
    for i, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise ValidationError({"labels": f"row {i}: expected a name and a kind"})
        name = " ".join(str(row.get("name", "")).split())
        kind = str(row.get("kind", "")).strip().lower()
        if not name or len(name) > 64:
            raise ValidationError({"labels": f"row {i}: a label name has 1 to 64 characters"})
        if kind not in LABEL_KINDS:
            raise ValidationError({"labels": f"row {i} ({name}): kind must be instance or region, not {kind!r}"})
        if name.lower() in seen:
            raise ValidationError({"labels": f"row {i}: {name!r} is listed twice"})
        seen.add(name.lower())
        clean.append({"name": name, "kind": kind})
    return clean


def labels_parse(text: str) -> list[dict[str, str]]:
    """The form's text: one label a line, `name: kind` (kind instance or region)."""
    rows: list[dict[str, Any]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        name, _, kind = line.rpartition(":") if ":" in line else (line, "", "")
        rows.append({"name": name, "kind": kind})
    return labels_clean(rows)


def task_mix_clean(mix: Any) -> dict[str, int]:
    """{task id: target count}: task ids of the catalog only, counts whole and not negative; tasks
    left out plan no items. Raises ValidationError on `task_mix`."""
    if not isinstance(mix, dict):
        raise ValidationError({"task_mix": "expected {task id: target count}"})
    clean = {}
    for task, count in mix.items():
        if task not in TASK_DIMENSION:
            raise ValidationError({"task_mix": f"{task!r} is not one of the 12 tasks ({', '.join(TASK_DIMENSION)})"})
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_TARGET:
            raise ValidationError({"task_mix": f"{task}: a target is a whole number from 0 to {MAX_TARGET}"})
        if count:
            clean[str(task)] = count
    return clean
