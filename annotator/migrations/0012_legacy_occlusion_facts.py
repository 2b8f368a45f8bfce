"""Marks saved by the workspace before the facts catalog carry an occlusion "level" (none, partial,
heavy) as a string: no template ever read it, and the catalog's occlusion is a relation between two
regions, so any later edit of such a mark's facts would be refused. The level moves into the mark's
note, where the annotator can still read it; the version stays, so no item turns stale (no item's
key came from it)."""

from __future__ import annotations

from typing import Any

from django.db import migrations


def _move_levels(apps: Any, schema_editor: Any) -> None:
    Mark = apps.get_model("annotator", "Mark")
    for mark in Mark.objects.filter(facts__has_key="occlusion").only("id", "facts").iterator():
        facts = dict(mark.facts)
        level = facts.get("occlusion")
        if not isinstance(level, str):
            continue
        del facts["occlusion"]
        note = " · ".join(part for part in (facts.get("note"), f"occlusion: {level}") if part)
        facts["note"] = note[:500]
        Mark.objects.filter(id=mark.id).update(facts=facts)


class Migration(migrations.Migration):
    dependencies = [("annotator", "0011_satellite_valid_area")]
    operations = [migrations.RunPython(_move_levels, migrations.RunPython.noop)]
