# Releases are built by a job (state, progress), carry their items as frozen records with splits,
# and once frozen refuse UPDATE and DELETE in the database: the release row, its item rows and the
# items themselves.

import django.db.models.deletion
from django.db import migrations, models

GUARDS = {
    "postgresql": [
        """
        CREATE OR REPLACE FUNCTION skymark_refuse_frozen_release() RETURNS trigger AS $$
        BEGIN
            IF OLD.state = 'frozen' THEN
                RAISE EXCEPTION 'release % is frozen: it cannot change or be deleted (make a new version)',
                    OLD.version USING ERRCODE = '23001';
            END IF;
            IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
            RETURN NEW;
        END $$ LANGUAGE plpgsql
        """,
        """
        CREATE OR REPLACE FUNCTION skymark_refuse_frozen_release_item() RETURNS trigger AS $$
        BEGIN
            IF EXISTS (SELECT 1 FROM review_release r WHERE r.id = OLD.release_id AND r.state = 'frozen') THEN
                RAISE EXCEPTION 'item % belongs to a frozen release', OLD.uid USING ERRCODE = '23001';
            END IF;
            IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
            RETURN NEW;
        END $$ LANGUAGE plpgsql
        """,
        """
        CREATE OR REPLACE FUNCTION skymark_refuse_released_item() RETURNS trigger AS $$
        BEGIN
            IF EXISTS (SELECT 1 FROM review_releaseitem ri JOIN review_release r ON r.id = ri.release_id
                       WHERE ri.item_id = OLD.id AND r.state = 'frozen') THEN
                RAISE EXCEPTION 'item % is in a frozen release: it cannot change or be deleted', OLD.id
                    USING ERRCODE = '23001';
            END IF;
            IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
            RETURN NEW;
        END $$ LANGUAGE plpgsql
        """,
        "CREATE TRIGGER review_release_frozen BEFORE UPDATE OR DELETE ON review_release "
        "FOR EACH ROW EXECUTE FUNCTION skymark_refuse_frozen_release()",
        "CREATE TRIGGER review_releaseitem_frozen BEFORE UPDATE OR DELETE ON review_releaseitem "
        "FOR EACH ROW EXECUTE FUNCTION skymark_refuse_frozen_release_item()",
        "CREATE TRIGGER annotator_item_released BEFORE UPDATE OR DELETE ON annotator_item "
        "FOR EACH ROW EXECUTE FUNCTION skymark_refuse_released_item()",
    ],
    "sqlite": [
        f"""
        CREATE TRIGGER {name}_{op.lower()} BEFORE {op} ON {table} FOR EACH ROW WHEN {when}
        BEGIN SELECT RAISE(ABORT, '{message}'); END
        """
        for op in ("UPDATE", "DELETE")
        for name, table, when, message in (
            (
                "review_release_frozen",
                "review_release",
                "OLD.state = 'frozen'",
                "release is frozen: it cannot change or be deleted (make a new version)",
            ),
            (
                "review_releaseitem_frozen",
                "review_releaseitem",
                "EXISTS (SELECT 1 FROM review_release r WHERE r.id = OLD.release_id AND r.state = 'frozen')",
                "item belongs to a frozen release",
            ),
            (
                "annotator_item_released",
                "annotator_item",
                "EXISTS (SELECT 1 FROM review_releaseitem ri JOIN review_release r ON r.id = ri.release_id "
                "WHERE ri.item_id = OLD.id AND r.state = 'frozen')",
                "item is in a frozen release: it cannot change or be deleted",
            ),
        )
    ],
}
DROP = {
    "postgresql": [
        "DROP TRIGGER IF EXISTS annotator_item_released ON annotator_item",
        "DROP TRIGGER IF EXISTS review_releaseitem_frozen ON review_releaseitem",
        "DROP TRIGGER IF EXISTS review_release_frozen ON review_release",
        "DROP FUNCTION IF EXISTS skymark_refuse_released_item()",
        "DROP FUNCTION IF EXISTS skymark_refuse_frozen_release_item()",
        "DROP FUNCTION IF EXISTS skymark_refuse_frozen_release()",
    ],
    "sqlite": [
        f"DROP TRIGGER IF EXISTS {name}_{op}"
        for name in ("annotator_item_released", "review_releaseitem_frozen", "review_release_frozen")
        for op in ("update", "delete")
    ],
}


def _run(statements):  # type: ignore[no-untyped-def]
    def apply(apps, schema_editor):  # type: ignore[no-untyped-def]
        for sql in statements.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql, params=None)  # no parameters: the % in RAISE messages stay

    return apply


def carry_over(apps, schema_editor):  # type: ignore[no-untyped-def]
    """Releases made before builds became jobs were frozen when made: keep them so."""
    Release = apps.get_model("review", "Release")
    ReleaseItem = apps.get_model("review", "ReleaseItem")
    for release in Release.objects.all():
        release.state, release.frozen_at, release.progress = "frozen", release.created_at, 100
        release.root = release.items_file.rsplit("/", 1)[0]
        release.save(update_fields=["state", "frozen_at", "progress", "root"])
        ReleaseItem.objects.bulk_create(
            ReleaseItem(release=release, item=item, uid=f"skm-{item.id:06d}", split="test", record={})
            for item in release.old_items.all()
        )


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0005_mark_lock_item_stale"),
        ("review", "0001_initial"),
    ]

    operations = [
        migrations.RenameField("release", "items", "old_items"),
        migrations.AddField(
            "release",
            "state",
            models.CharField(
                choices=[("building", "Building"), ("frozen", "Frozen"), ("failed", "Failed")],
                default="building",
                max_length=16,
            ),
        ),
        migrations.AddField("release", "progress", models.PositiveSmallIntegerField(default=0)),
        migrations.AddField("release", "error", models.TextField(blank=True)),
        migrations.AddField("release", "filters", models.JSONField(blank=True, default=dict)),
        migrations.AddField(
            "release",
            "parent",
            models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.release",
            ),
        ),
        migrations.AddField("release", "changelog", models.JSONField(blank=True, default=dict)),
        migrations.AddField("release", "sources", models.JSONField(blank=True, default=dict)),
        migrations.AddField("release", "root", models.CharField(blank=True, max_length=300)),
        migrations.AddField("release", "frozen_at", models.DateTimeField(blank=True, null=True)),
        migrations.AlterField("release", "items_file", models.CharField(blank=True, max_length=300)),
        migrations.AlterField("release", "manifest_file", models.CharField(blank=True, max_length=300)),
        migrations.AlterField("release", "item_count", models.PositiveIntegerField(default=0)),
        migrations.CreateModel(
            name="ReleaseItem",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("uid", models.CharField(max_length=32)),
                ("split", models.CharField(choices=[("train", "Train"), ("test", "Test")], max_length=8)),
                ("in_tiny", models.BooleanField(default=False)),
                ("record", models.JSONField()),
                (
                    "item",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="release_entries",
                        to="annotator.item",
                    ),
                ),
                (
                    "release",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="entries", to="review.release"
                    ),
                ),
            ],
            options={
                "ordering": ["release_id", "uid"],
                "constraints": [
                    models.UniqueConstraint(fields=("release", "item"), name="release_item_once"),
                    models.UniqueConstraint(fields=("release", "uid"), name="release_uid_once"),
                    models.CheckConstraint(
                        condition=models.Q(("split__in", ["train", "test"])), name="release_item_split_valid"
                    ),
                ],
            },
        ),
        migrations.RunPython(carry_over, migrations.RunPython.noop),
        migrations.RemoveField("release", "old_items"),
        migrations.AddField(
            "release",
            "items",
            models.ManyToManyField(related_name="releases", through="review.ReleaseItem", to="annotator.item"),
        ),
        migrations.AddConstraint(
            "release",
            models.CheckConstraint(
                condition=models.Q(("state__in", ["building", "frozen", "failed"])), name="release_state_valid"
            ),
        ),
        migrations.AddConstraint(
            "release",
            models.CheckConstraint(
                condition=models.Q(("state", "frozen"), _negated=True)
                | (models.Q(("frozen_at__isnull", False)) & models.Q(("items_file", ""), _negated=True)),
                name="release_frozen_complete",
            ),
        ),
        migrations.RunPython(_run(GUARDS), _run(DROP)),
    ]
