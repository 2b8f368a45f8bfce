# Marks carry their lock as data and items their staleness (the item lifecycle writes both).

from django.db import migrations, models
from django.db.models import Exists, OuterRef


def backfill(apps, schema_editor):
    """Lock the marks of items already in review or approved; flag open items whose marks moved on."""
    Item = apps.get_model("annotator", "Item")
    Mark = apps.get_model("annotator", "Mark")
    frozen = Item.objects.filter(marks=OuterRef("pk"), state__in=["in_review", "approved"])
    Mark.objects.update(locked=Exists(frozen))
    versions = dict(Mark.objects.values_list("id", "version"))
    stale = [
        item.id
        for item in Item.objects.filter(state__in=["draft", "rejected"]).only("id", "provenance")
        if any(versions.get(m["id"]) != m["version"] for m in item.provenance.get("marks", []))
    ]
    Item.objects.filter(id__in=stale).update(stale=True)


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0004_georef_kind_tile_format"),
    ]

    operations = [
        migrations.AddField(
            model_name="item",
            name="stale",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="mark",
            name="locked",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
