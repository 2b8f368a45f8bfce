"""Model instances from rows read by hand, as the ORM makes them: each column through the converters
the ORM's compiler applies, then `Model.from_db` (the fields not read are deferred)."""

from __future__ import annotations

import functools
from typing import Any

from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Model


def fetch(alias: str, sql: str, params: Any) -> list[tuple[Any, ...]]:
    """Every row of one hand-written query on this database, as stored (no converters)."""
    with connections[alias].cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def field_names(model: type[Model], *, without: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The names of the model's columns in its field order (as `instance` and Model.from_db read
    them), less those a read leaves deferred."""
    return tuple(f.name for f in model._meta.concrete_fields if f.name not in without)


@functools.cache
def _reader(alias: str, model: type[Model], names: tuple[str, ...]) -> tuple[list[str], list[tuple[int, Any, Any]]]:
    """The attribute names of these fields, and (position, column, converter) for each converter
    the ORM's compiler would apply to what it reads (times from SQLite's text, booleans from its
    0/1, JSON decoded); worked out once per model and fields."""
    connection = connections[alias]
    fields = [model._meta.get_field(name) for name in names]
    steps = []
    for i, field in enumerate(fields):
        col = field.get_col(model._meta.db_table)  # type: ignore[union-attr]
        for fn in connection.ops.get_db_converters(col) + field.get_db_converters(connection):  # type: ignore[union-attr]
            steps.append((i, col, fn))
    return [f.attname for f in fields], steps  # type: ignore[union-attr]


def converted(
    alias: str, model: type[Model], names: tuple[str, ...], values: Any, connection: BaseDatabaseWrapper | None = None
) -> Any:
    """These fields' stored values as the ORM reads them (each through its converters). A read of
    many rows passes `connections[alias]`, looked up once: the lookup goes through the handler's
    thread-critical local, about 1 us, and py-spy put 12 % of a reviewer's queue page (100 rows) in
    it when it was made per row."""
    steps = _reader(alias, model, names)[1]
    if steps:
        values = list(values)
        if connection is None:
            connection = connections[alias]
        for i, col, fn in steps:
            values[i] = fn(values[i], col, connection)
    return values


def instance(
    alias: str, model: type[Model], names: tuple[str, ...], values: Any, connection: BaseDatabaseWrapper | None = None
) -> Any:
    """A model instance from these fields' stored values (`names` in the model's field order), as
    the ORM's rows are made (from_db: the fields not read are deferred); `connection` as in
    `converted`."""
    made = converted(alias, model, names, values, connection)
    return model.from_db(alias, _reader(alias, model, names)[0], made)
