"""The database guards the migrations install (item lifecycle, frozen releases, append-only audit
log) exist in the catalog of the database the suite runs on: pg_trigger on PostgreSQL (CI),
sqlite_master on the embedded default. The tests of what each guard refuses run on both
(tests/annotator/compiling/test_lifecycle_db.py, tests/review/releasing/test_services.py,
tests/review/audit/test_audit_log.py); this one fails if a migration created none on one of them."""

from __future__ import annotations

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db

# table -> triggers, as each backend's migrations name them (PostgreSQL: one trigger for UPDATE
# and DELETE calling a plpgsql function; SQLite: one trigger per operation).
POSTGRESQL = {
    ("annotator_item", "annotator_item_transition", "skymark_item_transition"),
    ("annotator_item", "annotator_item_released", "skymark_refuse_released_item"),
    ("review_release", "review_release_frozen", "skymark_refuse_frozen_release"),
    ("review_releaseitem", "review_releaseitem_frozen", "skymark_refuse_frozen_release_item"),
    ("review_itemevent", "review_itemevent_append_only", "skymark_refuse_audit_change"),
}
SQLITE = {
    ("annotator_item", "annotator_item_transition"),
    ("annotator_item", "annotator_item_revision"),
    *{("annotator_item", f"annotator_item_released_{op}") for op in ("update", "delete")},
    *{("review_release", f"review_release_frozen_{op}") for op in ("update", "delete")},
    *{("review_releaseitem", f"review_releaseitem_frozen_{op}") for op in ("update", "delete")},
    *{("review_itemevent", f"review_itemevent_append_only_{op}") for op in ("update", "delete")},
}


def test_every_guard_trigger_is_in_the_catalog() -> None:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # enabled ('O': fires in the origin role sessions Django opens), not internal (FK triggers)
            cursor.execute(
                "SELECT c.relname, t.tgname, p.proname FROM pg_trigger t "
                "JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid "
                "WHERE NOT t.tgisinternal AND t.tgenabled = 'O'"
            )
            found = set(cursor.fetchall())
            assert found >= POSTGRESQL, f"missing: {POSTGRESQL - found}"
        else:
            assert connection.vendor == "sqlite"
            cursor.execute("SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger'")
            found = set(cursor.fetchall())
            assert found >= SQLITE, f"missing: {SQLITE - found}"
