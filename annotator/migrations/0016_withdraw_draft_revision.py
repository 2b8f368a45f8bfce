# A draft revision (revision 2 or later: a rejected item being revised) can be withdrawn too: the
# database's transition guard gains draft -> withdrawn, for revisions only (a first draft was never
# reviewed and is never withdrawn). No table changes: only the guard is made again.

import importlib

from django.db import migrations

guard_0010 = importlib.import_module("annotator.migrations.0010_item_adjudication_revision")
guard_0014 = importlib.import_module("annotator.migrations.0014_item_withdrawn_mark_copied_from")

EDGES = (*guard_0014.EDGES, ("draft", "withdrawn"))
_PAIRS = ", ".join(f"'{a}>{b}'" for a, b in EDGES)
FIRST_DRAFT_WITHDRAWN = "OLD.state = 'draft' AND NEW.state = 'withdrawn' AND OLD.revision < 2"
ILLEGAL_STATE = (
    f"NEW.state <> OLD.state AND ((OLD.state || '>' || NEW.state) NOT IN ({_PAIRS}) OR ({FIRST_DRAFT_WITHDRAWN}))"
)


class Migration(migrations.Migration):
    dependencies = [
        ("annotator", "0015_job_lease"),
    ]

    operations = [
        migrations.RunPython(
            guard_0010._run(guard_0010.DROP), guard_0010._run(guard_0014._guards(guard_0014.ILLEGAL_STATE))
        ),
        migrations.RunPython(guard_0010._run(guard_0014._guards(ILLEGAL_STATE)), guard_0010._run(guard_0010.DROP)),
    ]
