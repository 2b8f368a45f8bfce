from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0025_assisted_tracking"),
    ]

    operations = [
        migrations.AddField(
            model_name="mediajob",
            name="rerun",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="mediajob",
            name="waiting_for",
            field=models.CharField(blank=True, max_length=200),
        ),
        # A job left waiting before this migration read `pending` with a finish time: clear it.
        migrations.RunSQL(
            "UPDATE annotator_mediajob SET finished_at = NULL, started_at = NULL "
            "WHERE state = 'pending' AND detail LIKE 'waiting for %%'",
            migrations.RunSQL.noop,
        ),
    ]
