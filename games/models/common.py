"""What several rooms of the models share: statements written out, and the rows they read back."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from django.db import connection, models

if TYPE_CHECKING:  # what a statement's parameter may be, as django-stubs spells it
    from typing import TypeAlias

    from django.db.backends.utils import _SQLType

    SQLParam: TypeAlias = _SQLType

_M = TypeVar("_M", bound=models.Model)


def fetch(sql: str, *params: SQLParam) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows: list[tuple[Any, ...]] = cursor.fetchall()
        return rows


def latest_rows(sql: str, partitions: Sequence[tuple[SQLParam, ...]]) -> list[tuple[Any, ...]]:
    """The rows of `sql` (the latest rows of one partition, through its index) for each of
    `partitions` (its parameters), in one statement, however long the history behind them."""
    if not partitions:
        return []
    union = " UNION ALL ".join(f"SELECT * FROM ({sql}) latest_{i}" for i in range(len(partitions)))
    return fetch(union, *(param for params in partitions for param in params))


def moment(value: str | datetime) -> datetime:
    """A timestamp as a query written out reads it: on SQLite, a time without its zone (UTC,
    as Django writes it there), or its text; on PostgreSQL, the moment itself."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def column_list(model: type[models.Model], alias: str) -> str:
    return ", ".join(f"{alias}.{field.column}" for field in model._meta.concrete_fields)


def loaded(model: type[_M], values: Sequence[Any]) -> _M:
    """An instance of `model` from its columns (`column_list`) as a query written out read them."""
    fields = model._meta.concrete_fields
    values = [
        moment(value) if isinstance(field, models.DateTimeField) and value is not None else value
        for field, value in zip(fields, values, strict=True)
    ]
    return model.from_db(connection.alias, [field.attname for field in fields], values)
