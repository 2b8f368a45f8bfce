"""Seed the phrasing table with the templates' built-in phrasings (their place in the template is kept)."""

from django.db import migrations


def seed(apps, schema_editor):
    from annotator.compiling.phrasings import builtin_phrasings

    Phrasing = apps.get_model("annotator", "Phrasing")
    for task, polarity, index, text in builtin_phrasings():
        Phrasing.objects.get_or_create(
            task=task, polarity=polarity, text=text, defaults={"builtin": True, "builtin_index": index}
        )


def unseed(apps, schema_editor):
    apps.get_model("annotator", "Phrasing").objects.filter(builtin=True).delete()


class Migration(migrations.Migration):
    dependencies = [("annotator", "0008_modelview_phrasing_effort")]

    operations = [migrations.RunPython(seed, unseed)]
