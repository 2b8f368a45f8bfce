# A rejected item can be withdrawn by its author (rejected -> withdrawn, a new edge of the
# lifecycle graph that the database's guard must allow), and a mark remembers the mark it was
# copied from on write (annotator.compiling.lifecycle.items_move_to_copy).

import importlib

from django.db import migrations, models

# The guard and the trigger-keeping steps of the migration that made them, reused as they are.
previous = importlib.import_module("annotator.migrations.0010_item_adjudication_revision")

EDGES = (*previous.EDGES, ("rejected", "withdrawn"))
_PAIRS = ", ".join(f"'{a}>{b}'" for a, b in EDGES)
ILLEGAL_STATE = f"NEW.state <> OLD.state AND (OLD.state || '>' || NEW.state) NOT IN ({_PAIRS})"
STATES = ["draft", "in_review", "in_adjudication", "approved", "rejected", "withdrawn"]


def _guards(illegal_state: str) -> dict[str, list[str]]:
    return {
        "postgresql": [
            f"""
            CREATE OR REPLACE FUNCTION skymark_item_transition() RETURNS trigger AS $$
            BEGIN
                IF {illegal_state} THEN
                    RAISE EXCEPTION 'item %: % -> % is not a transition of the item lifecycle',
                        OLD.id, OLD.state, NEW.state USING ERRCODE = '23514';
                END IF;
                IF {previous.ILLEGAL_REVISION} THEN
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
            FOR EACH ROW WHEN ({illegal_state})
            BEGIN SELECT RAISE(ABORT, 'item state change is not a transition of the item lifecycle'); END
            """,
            f"""
            CREATE TRIGGER annotator_item_revision BEFORE UPDATE OF state, revision ON annotator_item
            FOR EACH ROW WHEN ({previous.ILLEGAL_REVISION})
            BEGIN
                SELECT RAISE(ABORT, 'the item revision changes only when its author revises it after a rejection');
            END
            """,
        ],
    }


def _state_field(states: list[str]) -> models.CharField:
    return models.CharField(choices=[(s, s.replace("_", " ").title()) for s in states], default="draft", max_length=16)


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0013_occlusion_relation_lists"),
    ]

    operations = [
        # The guard is dropped first (SQLite rebuilds the table for the new constraint; the
        # triggers of other apps on it are kept and restored as migration 0010 does).
        migrations.RunPython(previous._run(previous.DROP), previous._run(previous.GUARDS)),
        migrations.RunPython(previous.keep_triggers, previous.restore_triggers),
        migrations.AlterField("item", "state", _state_field(STATES)),
        migrations.RemoveConstraint("item", "item_state_valid"),
        migrations.AddConstraint(
            "item",
            models.CheckConstraint(condition=models.Q(("state__in", STATES)), name="item_state_valid"),
        ),
        migrations.RunPython(previous.restore_triggers, previous.keep_triggers),
        migrations.RunPython(previous._run(_guards(ILLEGAL_STATE)), previous._run(previous.DROP)),
        migrations.AddField(
            "mark",
            "copied_from",
            models.ForeignKey(
                blank=True,
                null=True,
                on_delete=models.deletion.SET_NULL,
                related_name="copies",
                to="annotator.mark",
            ),
        ),
    ]
