"""The statements the models write out, and the rows they read back.

Everything else goes through the ORM. A statement is written out here only where a benchmark
measured the ORM's version costing a page more than 10 % as served, or where the ORM can't say
it; the figure is above each. Tables are named as their models name them (`statement`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

from django.apps import apps
from django.db import connection, models

if TYPE_CHECKING:  # what a statement's parameter may be, as django-stubs spells it
    from typing import TypeAlias

    from django.db.backends.utils import _SQLType

    SQLParam: TypeAlias = _SQLType

_M = TypeVar("_M", bound=models.Model)


# What every page over a group reads first: the user's memberships with their groups (the
# role, the group's version, the switch between groups), as `Membership` and `Group` columns.
# The ORM's select_related took 350 µs to this statement's 100 on SQLite, 7–9 % of a
# scoreboard on its own; with the ORM's read of the match by its id (5 %, which the ORM now
# does) a scoreboard cost 14 % more and a check 24 % more (bench/pages_bench.py's pages, A/B
# in one run), past the 10 % a page may lose.
MEMBERSHIPS = """
    SELECT {membership_columns}, {group_columns}
    FROM {membership} JOIN {group} ON {group}.id = {membership}.group_id
    WHERE {membership}.user_id = %s ORDER BY {group}.name, {group}.id
"""

# A match's hands from number %s to %s, each with its players' parts and its verdict
# (`VERDICT_COLUMNS`), naming players by seat: one statement, so that a page never sees half of
# a write (under READ COMMITTED each statement has its own snapshot; the ORM's hands and their
# prefetched plays are two), and a rename committed meanwhile changes a name, never a seat.
# The seats are joined on (match, player), which is no relation the ORM can follow.
HANDS = """
    SELECT hand.number, hand.upcard, hand.trump, maker.position, hand.bid, hand.passed,
           hand.moon, seat.position, play.dropped, play.tricks, hand.dealer, hand.scores, hand.sets
    FROM {hand} hand
    LEFT JOIN {seat} maker
        ON maker.match_id = hand.match_id AND maker.player_id = hand.maker_id
    LEFT JOIN {play} play ON play.hand_id = hand.id
    LEFT JOIN {seat} seat ON seat.match_id = hand.match_id AND seat.player_id = play.player_id
    WHERE hand.match_id = %s AND hand.number BETWEEN %s AND %s
    ORDER BY hand.number, play.id
"""

# Each match's card on a list (`Match.card_rows`): the match and its stored results, seat by
# seat. The ORM's matches with their prefetched results and players took 2.57 ms for 20 cards
# to this statement's 0.33 on SQLite (2.92 to 0.95 on PostgreSQL): more than the whole home
# page takes as served (1.7 and 2.5 ms).
CARDS = """
    SELECT m.id, m.preset, m.options, m.played_at, m.finished, m.hands_played, m.next_dealer,
        r.seat, p.name, r.score, r.won
    FROM {match} m
    LEFT JOIN {result} r ON r.match_id = m.id
    LEFT JOIN {player} p ON p.id = r.player_id
    WHERE m.id IN ({{ids}})
    ORDER BY m.id, r.seat
"""


@cache
def statement(name: str) -> str:
    """The statement `name` of this module, its tables (`{match}`) and columns
    (`{membership_columns}`) named as the models of the app name them."""
    names: dict[str, str] = {}
    for model in apps.get_app_config("games").get_models():
        table = model._meta.db_table
        names[model._meta.model_name or table] = table
        names[f"{model._meta.model_name}_columns"] = column_list(model, table)
    sql: str = globals()[name]
    return sql.format(**names)


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
