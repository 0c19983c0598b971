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

from games import rules

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


# A player's running totals of money kept on their results (`run_totals`): each finished match
# played for money of the players `{players}` numbered in the order they began within its
# currency, with the net up to it, written where it changed (a match added at the end writes
# one row a player, not every one). The ORM can't update rows from a window of them.
RUN_TOTALS = """
    UPDATE {result} SET running_place = run.place, running_cents = run.cents
    FROM (
        SELECT r.id AS id, ROW_NUMBER() OVER so_far AS place, SUM(r.net_cents) OVER so_far AS cents
        FROM {result} r JOIN {match} m ON m.id = r.match_id
        WHERE r.player_id IN ({{players}}) AND m.finished IS NOT NULL AND ({staked})
        WINDOW so_far AS (
            PARTITION BY r.player_id, m.currency ORDER BY m.played_at, m.id
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        )
    ) run
    WHERE {result}.id = run.id AND (
        {result}.running_place IS NULL OR {result}.running_place <> run.place
        OR {result}.running_cents <> run.cents
    )
"""

# The latest rows of one partition, read through its index however long the history behind
# it, and asked for several partitions at once in one statement (`latest_rows`): a union of
# limited selects, which the ORM can't say on SQLite. Asked one partition at a time instead
# (the ORM's way), a balances page's 8 players' latest nights took 2.43 ms to this 0.08 on
# SQLite (3.73 to 0.44 on PostgreSQL), a quarter of the page drawn anew; a save that ends a
# match, its 4 players' last running totals 1.53 ms to 0.05 (3.39 to 1.28), 15 % of the save.
#
# A player's last running total in a currency (%s, %s) but that of a match (%s).
LAST_RUNNING = """
    SELECT r.player_id, r.running_place, r.running_cents, m.played_at, m.id
    FROM {result} r JOIN {match} m ON m.id = r.match_id
    WHERE r.player_id = %s AND m.currency = %s AND r.running_place IS NOT NULL
        AND r.match_id <> %s
    ORDER BY r.running_place DESC LIMIT 1
"""
# A player's latest nights in a currency (%s, %s), as many as %s.
LATEST_NIGHTS = """
    SELECT player_id, currency, night_id, net_cents, started FROM {nightsum}
    WHERE player_id = %s AND currency = %s ORDER BY started DESC, night_id LIMIT %s
"""
# A player's latest payments in a currency: made (%s, %s, and how many) and received.
LATEST_PAYMENTS = """
    SELECT id FROM (
        SELECT id FROM {payment} WHERE payer_id = %s AND currency = %s
        ORDER BY paid_at DESC, id DESC LIMIT %s
    ) made
    UNION ALL
    SELECT id FROM (
        SELECT id FROM {payment} WHERE payee_id = %s AND currency = %s
        ORDER BY paid_at DESC, id DESC LIMIT %s
    ) received
"""

# A hand that does not end its match moves its seats' results and its players' sums on by what
# it alone did (`writes._store_next`, `sums.add_to_sums`): every row in one statement, each
# count set, or moved on, by a CASE of the row's seat (or player) (`moved_on`). The ORM says
# it as F() + Case(When()) a column: 4 seats' results took 13.7 ms so on SQLite and 11.0 on
# PostgreSQL, to 0.20 and 0.82 for this statement (in one run, on a busy machine), more than
# the whole save costs without it.
#
# The results of a match (%s): their {{counts}}.
RESULTS_MOVED_ON = "UPDATE {result} SET {{counts}} WHERE match_id = %s"
# The sums of a preset and a currency (%s, %s) of some players ({{players}}): their {{counts}}.
SUMS_MOVED_ON = """
    UPDATE {resultsum} SET {{counts}}
    WHERE preset = %s AND currency = %s AND player_id IN ({{players}})
"""

# Who wrote each of some hands of a match as it stands (`Change.authors`): its saves and edits,
# with the player their account is in its group (%s), of the match (%s), of two kinds (%s, %s)
# and hands ({{numbers}}). Every board a member opens drawn anew asks it, a save's among them.
# The ORM's, with the player as a subquery of the memberships, took 1.04 ms on SQLite and 3.40
# on PostgreSQL to this statement's 0.07 and 0.44: 10 % of a save as served on SQLite
# (bench/pages_bench.py).
AUTHORS = """
    SELECT c.id, c.kind, c.number, c.user_id, c.by, c.at, c.key, p.name
    FROM {change} c
    LEFT JOIN {membership} mb ON mb.group_id = %s AND mb.user_id = c.user_id
    LEFT JOIN {player} p ON p.id = mb.player_id
    WHERE c.match_id = %s AND c.kind IN (%s, %s) AND c.number IN ({{numbers}})
    ORDER BY c.at, c.id
"""

# The throttles' count of attempts takes turns on PostgreSQL (games/throttles.py): a lock of a
# whole table, which the ORM has no word for.
LOCK_ATTEMPTS = "LOCK TABLE {attempt} IN EXCLUSIVE MODE"


@cache
def statement(name: str) -> str:
    """The statement `name` of this module, its tables (`{match}`) and columns
    (`{membership_columns}`) named as the models of the app name them."""
    names: dict[str, str] = {}
    for model in apps.get_app_config("games").get_models():
        table = model._meta.db_table
        names[model._meta.model_name or table] = table
        names[f"{model._meta.model_name}_columns"] = column_list(model, table)
    # A match played for money (rules.Stakes.__bool__), of a match `m`.
    names["staked"] = " OR ".join(f"m.{name}_cents > 0" for name in rules.STAKE_NAMES)
    sql: str = globals()[name]
    return sql.format(**names)


def fetch(sql: str, *params: SQLParam) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows: list[tuple[Any, ...]] = cursor.fetchall()
        return rows


def execute(sql: str, *params: SQLParam) -> int:
    """Run `sql`: how many rows it changed."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        changed: int = cursor.rowcount
        return changed


def moved_on(
    key: str, rows: dict[int, dict[str, int]], set_to: Sequence[str], moved: Sequence[str]
) -> tuple[str, list[int]]:
    """The {counts} of a `*_MOVED_ON` statement, and their parameters: each column of `set_to`
    set to, and each of `moved` moved on by, its value in `rows` ({the row's `key`, a seat or
    a player: {column: value}}); a column moved on by nothing is left out."""
    counts, params = [], []
    for column in [*set_to, *moved]:
        values = [(row, mine[column]) for row, mine in rows.items()]
        if column in moved and not any(value for _, value in values):
            continue
        name = connection.ops.quote_name(column)
        whens = " ".join("WHEN %s THEN %s" for _ in values)
        rest = (
            f"{name} + CASE {key} {whens} ELSE 0 END"
            if column in moved
            else (f"CASE {key} {whens} ELSE {name} END")
        )
        counts.append(f"{name} = {rest}")
        params += [param for pair in values for param in pair]
    return ", ".join(counts), params


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
