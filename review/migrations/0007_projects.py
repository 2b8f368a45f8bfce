# Releases and review policies belong to a project: the releases made so far and the one policy
# row go to the default project (annotator 0019). Frozen releases refuse UPDATE in the database,
# so their guard is lifted while the new column is filled and made again after. On SQLite making
# the column NOT NULL rebuilds the table, which its own triggers do not survive and which the other
# guards' triggers (they read review_release) refuse: all of 0002's guards go and come back.

import importlib

import django.db.models.deletion
from django.core.management.color import no_style
from django.db import migrations, models

import annotator.models.projects


def _guards():  # type: ignore[no-untyped-def]
    return importlib.import_module("review.migrations.0002_release_builds_and_immutability")


def fill(apps, schema_editor):  # type: ignore[no-untyped-def]
    Project = apps.get_model("annotator", "Project")
    Release = apps.get_model("review", "Release")
    Policy = apps.get_model("review", "ReviewPolicy")
    project = Project.objects.get(slug="default")
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute("ALTER TABLE review_release DISABLE TRIGGER review_release_frozen")
    elif vendor == "sqlite":
        for sql in _guards().DROP["sqlite"]:
            schema_editor.execute(sql)
    Release.objects.update(project=project)
    Policy.objects.update(project=project)
    # The one policy row was made with an explicit id (0004): move the id sequence past it, or the
    # next project's policy would be given id 1 again on PostgreSQL.
    for sql in schema_editor.connection.ops.sequence_reset_sql(no_style(), [Policy]):
        schema_editor.execute(sql)
    if vendor == "postgresql":
        # the deferred foreign-key checks of the update run now, so the table may be altered after
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        schema_editor.execute("ALTER TABLE review_release ENABLE TRIGGER review_release_frozen")


def guards_again(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "sqlite":
        for sql in _guards().GUARDS["sqlite"]:
            schema_editor.execute(sql, params=None)


def guards_off(apps, schema_editor):  # type: ignore[no-untyped-def]
    # migrating back rebuilds the tables as well (on SQLite)
    if schema_editor.connection.vendor == "sqlite":
        for sql in _guards().DROP["sqlite"]:
            schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0021_projects"),
        ("review", "0006_assignment_reviewer_latest"),
    ]

    operations = [
        migrations.RunPython(migrations.RunPython.noop, guards_again),
        migrations.AddField(
            model_name="release",
            name="project",
            field=models.ForeignKey(
                null=True, on_delete=django.db.models.deletion.PROTECT, related_name="releases", to="annotator.project"
            ),
        ),
        migrations.AddField(
            model_name="reviewpolicy",
            name="project",
            field=models.OneToOneField(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="review_policy",
                to="annotator.project",
            ),
        ),
        migrations.RemoveConstraint(model_name="reviewpolicy", name="review_policy_single_row"),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="release",
            name="project",
            field=models.ForeignKey(
                default=annotator.models.projects.project_default_id,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="releases",
                to="annotator.project",
            ),
        ),
        migrations.AlterField(
            model_name="reviewpolicy",
            name="project",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.CASCADE, related_name="review_policy", to="annotator.project"
            ),
        ),
        migrations.AlterModelOptions(name="reviewpolicy", options={"verbose_name_plural": "review policies"}),
        migrations.RunPython(guards_again, guards_off),
    ]
