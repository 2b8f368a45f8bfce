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


def test_postgresql_prepares_what_a_connection_runs_again() -> None:
    # given the suite's connection (CI: PostgreSQL; the embedded default has no such thing)
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's")
    assert connection.settings_dict["OPTIONS"]["server_side_binding"] is True
    from annotator.models import Scene

    # when the same query runs three times with different values
    for scene_id in (1, 2, 3):
        list(Scene.objects.filter(id=scene_id).values_list("id", flat=True))
    # then the server holds it prepared, with the value as a parameter
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any('FROM "annotator_scene" WHERE "annotator_scene"."id" = $1' in sql for sql in prepared), prepared
