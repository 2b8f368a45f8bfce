"""The occlusion fact becomes a list of relations, one per other region ({"other", "relation"}), so a
region can state how it relates to several others. A mark saved before stores a single relation as
an object: it becomes a list of that one relation. The version stays: the relation and the items
built from it do not change."""

from __future__ import annotations

from typing import Any

from django.db import migrations


def _to_lists(apps: Any, schema_editor: Any) -> None:
    Mark = apps.get_model("annotator", "Mark")
    for mark in Mark.objects.filter(facts__has_key="occlusion").only("id", "facts").iterator():
        relation = mark.facts.get("occlusion")
        if isinstance(relation, dict):
            Mark.objects.filter(id=mark.id).update(facts={**mark.facts, "occlusion": [relation]})


def _to_objects(apps: Any, schema_editor: Any) -> None:
    """Back to one relation per mark: the first of its list (the others cannot be stored so)."""
    Mark = apps.get_model("annotator", "Mark")
    for mark in Mark.objects.filter(facts__has_key="occlusion").only("id", "facts").iterator():
        relations = mark.facts.get("occlusion")
        if isinstance(relations, list) and relations:
            Mark.objects.filter(id=mark.id).update(facts={**mark.facts, "occlusion": relations[0]})


class Migration(migrations.Migration):
    dependencies = [("annotator", "0012_legacy_occlusion_facts")]
    operations = [migrations.RunPython(_to_lists, _to_objects)]
