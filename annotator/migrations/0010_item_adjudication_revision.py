# Items gain the adjudication state and a revision number; the database refuses any change of
# state that is not an edge of the lifecycle graph (annotator.compiling.lifecycle.TRANSITIONS), and
# any change of revision except the author's revise (rejected -> draft, revision + 1).

from django.db import migrations, models

# (from, to) pairs the lifecycle allows; keep in step with lifecycle.TRANSITIONS.
EDGES = (
    ("draft", "in_review"),
    ("in_review", "approved"),
    ("in_review", "rejected"),
    ("in_review", "in_adjudication"),
    ("in_adjudication", "approved"),
    ("in_adjudication", "rejected"),
    ("rejected", "draft"),
)
_PAIRS = ", ".join(f"'{a}>{b}'" for a, b in EDGES)
ILLEGAL_STATE = f"NEW.state <> OLD.state AND (OLD.state || '>' || NEW.state) NOT IN ({_PAIRS})"
REVISE = "OLD.state = 'rejected' AND NEW.state = 'draft'"
ILLEGAL_REVISION = (
    f"(NEW.revision <> OLD.revision OR ({REVISE})) AND NOT ({REVISE} AND NEW.revision = OLD.revision + 1)"
)

GUARDS = {
    "postgresql": [
        f"""
        CREATE OR REPLACE FUNCTION skymark_item_transition() RETURNS trigger AS $$
        BEGIN
            IF {ILLEGAL_STATE} THEN
                RAISE EXCEPTION 'item %: % -> % is not a transition of the item lifecycle',
                    OLD.id, OLD.state, NEW.state USING ERRCODE = '23514';
            END IF;
            IF {ILLEGAL_REVISION} THEN
                RAISE EXCEPTION 'item %: the revision changes only when its author revises it after a rejection',
                    OLD.id USING ERRCODE = '23514';
            END IF;
            RETURN NEW;
        END $$ LANGUAGE plpgsql
        """,
        "CREATE TRIGGER annotator_item_transition BEFORE UPDATE ON annotator_item "
        "FOR EACH ROW EXECUTE FUNCTION skymark_item_transition()",
    ],
    "sqlite": [
        f"""
        CREATE TRIGGER annotator_item_transition BEFORE UPDATE OF state, revision ON annotator_item
        FOR EACH ROW WHEN ({ILLEGAL_STATE})
        BEGIN SELECT RAISE(ABORT, 'item state change is not a transition of the item lifecycle'); END
        """,
        f"""
        CREATE TRIGGER annotator_item_revision BEFORE UPDATE OF state, revision ON annotator_item
        FOR EACH ROW WHEN ({ILLEGAL_REVISION})
        BEGIN SELECT RAISE(ABORT, 'the item revision changes only when its author revises it after a rejection'); END
        """,
    ],
}
DROP = {
    "postgresql": [
        "DROP TRIGGER IF EXISTS annotator_item_transition ON annotator_item",
        "DROP FUNCTION IF EXISTS skymark_item_transition()",
    ],
    "sqlite": [
        "DROP TRIGGER IF EXISTS annotator_item_transition",
        "DROP TRIGGER IF EXISTS annotator_item_revision",
    ],
}


# SQLite cannot alter a table's constraints in place: Django copies annotator_item into a new table,
# and the triggers on the old one (review's guard on released items) go with it. They are read
# before the schema changes and made again after.
_kept: list[str] = []


def keep_triggers(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "sqlite":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'annotator_item'")
            _kept[:] = [sql for (sql,) in cursor.fetchall() if sql]


def restore_triggers(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "sqlite":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'annotator_item'")
            present = {sql for (sql,) in cursor.fetchall()}
        for sql in _kept:
            if sql not in present:
                schema_editor.execute(sql, params=None)


def _run(statements):  # type: ignore[no-untyped-def]
    def apply(apps, schema_editor):  # type: ignore[no-untyped-def]
        for sql in statements.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql, params=None)  # no parameters: the % in RAISE messages stay

    return apply


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0009_seed_phrasings"),
    ]

    operations = [
        migrations.RunPython(keep_triggers, restore_triggers),
        migrations.AddField("item", "revision", models.PositiveIntegerField(default=1)),
        migrations.AlterField(
            "item",
            "state",
            models.CharField(
                choices=[
                    ("draft", "Draft"),
                    ("in_review", "In Review"),
                    ("in_adjudication", "In Adjudication"),
                    ("approved", "Approved"),
                    ("rejected", "Rejected"),
                ],
                default="draft",
                max_length=16,
            ),
        ),
        migrations.RemoveConstraint("item", "item_state_valid"),
        migrations.AddConstraint(
            "item",
            models.CheckConstraint(
                condition=models.Q(("state__in", ["draft", "in_review", "in_adjudication", "approved", "rejected"])),
                name="item_state_valid",
            ),
        ),
        migrations.AddConstraint(
            "item",
            models.CheckConstraint(condition=models.Q(("revision__gte", 1)), name="item_revision_positive"),
        ),
        migrations.RunPython(restore_triggers, keep_triggers),
        migrations.RunPython(_run(GUARDS), _run(DROP)),
    ]
