"""Each player's sums kept in step with their results: per night (`NightSum`), the running totals
of money, and the one write path that moves them (`move_sums`, `recount_sums`)."""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar, cast

from django.db import connection, models
from django.db.models import Count, Field, Min, Q, Sum

from games import rules
from games.models.common import column_list, fetch, latest_rows, loaded, moment
from games.models.results import (
    COUNTED,
    NET,
    STAKED,
    SUMMED,
    TALLY_FIELDS,
    Result,
    ResultSum,
    stat_sums,
)

if TYPE_CHECKING:
    from games.models.common import SQLParam
    from games.models.matches import Match
    from games.models.results import ResultQuerySet


# A running total of money, written out (built by the ORM, its windows cost four times what
# the database spends running them): each finished match played for money of the players
# `{players}`, numbered in the order they began within `{partition}`, with the net up to it.
RUNNING_SQL = """
    SELECT r.id AS id, m.currency AS currency, m.played_at AS played_at,
        ROW_NUMBER() OVER so_far AS place, SUM(r.net_cents) OVER so_far AS cents
    FROM {result} r JOIN {match} m ON m.id = r.match_id
    WHERE r.player_id IN ({players}) AND m.finished IS NOT NULL AND ({staked})
    WINDOW so_far AS (
        PARTITION BY {partition} ORDER BY m.played_at, m.id
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    )
"""
# A player's running totals kept on their results (`run_totals`): those of matches that no
# longer count forgotten, then each that counts written where it changed (a match added at
# the end writes one row a player, not every one), and read back at the places a chart
# shows, through the index on (player, place).
FORGET_RUNNING_SQL = """
    UPDATE {result} SET running_place = NULL, running_cents = NULL
    WHERE player_id IN ({players}) AND running_place IS NOT NULL AND match_id IN (
        SELECT id FROM {match} m WHERE m.finished IS NULL OR NOT ({staked})
    )
"""
RUN_TOTALS_SQL = """
    UPDATE {result} SET running_place = run.place, running_cents = run.cents
    FROM ({running}) run
    WHERE {result}.id = run.id AND (
        {result}.running_place IS NULL OR {result}.running_place <> run.place
        OR {result}.running_cents <> run.cents
    )
"""
LAST_RUNNING_SQL = """
    SELECT r.player_id, r.running_place, r.running_cents, m.played_at, m.id
    FROM {result} r JOIN {match} m ON m.id = r.match_id
    WHERE r.player_id = %s AND m.currency = %s AND r.running_place IS NOT NULL
        AND r.match_id <> %s
    ORDER BY r.running_place DESC LIMIT 1
"""
RUN_ON_SQL = """
    UPDATE {result} SET running_place = %s, running_cents = %s
    WHERE match_id = %s AND player_id = %s
"""
STORED_RUNNING_SQL = """
    SELECT m.currency, r.running_place, m.played_at, r.running_cents
    FROM {result} r JOIN {match} m ON m.id = r.match_id
    WHERE r.player_id = %s AND r.running_place IN ({places})
    ORDER BY m.currency, r.running_place
"""


@functools.cache
def _tables() -> dict[str, str]:
    """The tables the statements here read, for their `{result}`, `{match}`, `{nightsum}`."""
    from games.models import matches

    return {
        "result": Result._meta.db_table,
        "match": matches.Match._meta.db_table,
        "nightsum": NightSum._meta.db_table,
    }


# A match played for money (rules.Stakes.__bool__), of a match `m`, as `STAKED` asks it.
STAKED_SQL = " OR ".join(f"m.{name}_cents > 0" for name in rules.STAKE_NAMES)


def _running_sql(players: list[int], partition: str) -> str:
    return RUNNING_SQL.format(
        **_tables(),
        players=", ".join(["%s"] * len(players)),
        staked=STAKED_SQL,
        partition=partition,
    )


def run_totals(players: Iterable[int]) -> None:
    """Number these players' finished matches played for money and keep the running total
    of each on its result (`Result.running_place`): written with their sums, wherever a
    match starts or stops counting for them or its money changes."""
    players = sorted(players)
    if not players:
        return
    marks = ", ".join(["%s"] * len(players))
    running = _running_sql(players, "r.player_id, m.currency")
    forget = FORGET_RUNNING_SQL.format(**_tables(), players=marks, staked=STAKED_SQL)
    with connection.cursor() as cursor:
        cursor.execute(forget, players)
        cursor.execute(RUN_TOTALS_SQL.format(**_tables(), running=running), players)


def _run_on(match: Match, nets: dict[int, int]) -> None:
    """`match`, just counted for its players' money (it ended), with their nets: the next
    place of each player whose latest such match in its currency it is, from their last
    place (one row a player, through the index), else their running totals anew."""
    key = (moment(match.played_at), match.pk)
    partitions = [(player, match.currency, match.pk) for player in sorted(nets)]
    last_sql = LAST_RUNNING_SQL.format(**_tables())
    last = {row[0]: row[1:] for row in latest_rows(last_sql, partitions)}
    ahead: list[tuple[int, int, int, int]] = []
    anew: list[int] = []
    for player, net in nets.items():
        place, cents, played_at, pk = last.get(player, (0, 0, None, None))
        if place and (moment(played_at), pk) > key:
            anew.append(player)  # a later match of theirs counts already: it moves up
            continue
        ahead.append((place + 1, cents + net, match.pk, player))
    with connection.cursor() as cursor:
        cursor.executemany(RUN_ON_SQL.format(**_tables()), ahead)
    run_totals(anew)


def running_money(
    players: Collection[int], shown: dict[str, set[int]]
) -> dict[str, list[tuple[datetime, int]]]:
    """The money `players` (ids) won over their finished matches played for money, a running
    total a currency, match by match in the order they began: (when the match began, the
    total after it) after each match whose place in that order (from 0) is among the
    currency's `shown`. One player's are read from their results' running totals, only the
    places shown; several players' together (a person's in each of their groups) are added
    up by the database, every match read."""
    places = sorted({i + 1 for kept in shown.values() for i in kept})
    if not players or not places:
        return {}
    marks = ", ".join(["%s"] * len(places))
    if len(players) == 1:
        stored = STORED_RUNNING_SQL.format(**_tables(), places=marks)
        rows = fetch(stored, *players, *places)
    else:
        running = _running_sql(list(players), "m.currency")
        sql = (
            f"SELECT currency, place, played_at, cents FROM ({running}) running "
            f"WHERE place IN ({marks}) ORDER BY currency, place"
        )
        rows = fetch(sql, *players, *places)
    out: dict[str, list[tuple[datetime, int]]] = {}
    for currency, place, played_at, cents in rows:
        if place - 1 in shown.get(currency, ()):
            # (A SUM of integers is an integer on SQLite, a numeric on PostgreSQL.)
            out.setdefault(currency, []).append((moment(played_at), int(cents)))
    return out


LATEST_NIGHTS_SQL = """
    SELECT player_id, currency, night_id, net_cents, started FROM {nightsum}
    WHERE player_id = %s AND currency = %s ORDER BY started DESC, night_id LIMIT %s
"""


class NightSum(models.Model):
    """A player's money over the finished matches of one night played for money in one
    currency, and when the first of them began: what a balance's workings list night by
    night, the latest first, reading a dozen rows a player, never every match. Written with
    `ResultSum`, by the same two functions."""

    night = models.ForeignKey("Night", models.CASCADE, related_name="sums")
    player = models.ForeignKey("Player", models.CASCADE, related_name="night_sums")
    currency = models.CharField(max_length=rules.CURRENCY_LENGTH)
    matches = models.PositiveIntegerField(default=0)
    net_cents = models.BigIntegerField(default=0)
    started = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["night", "player", "currency"], name="night_sum_unique"
            ),
        ]
        indexes = [
            models.Index(fields=["player", "currency", "-started"], name="night_sum_latest"),
        ]

    def __str__(self) -> str:
        return f"{self.player} on {self.night_id}: {self.net_cents}"

    def get_absolute_url(self) -> str:
        return self.night.get_absolute_url()

    @staticmethod
    def latest(
        keys: list[tuple[int, str]], most: int
    ) -> dict[tuple[int, str], list[tuple[int, int, datetime]]]:
        """The `most` latest nights of each (player, currency) of `keys`: (night, net, when
        the player began there), the latest first."""
        sql = LATEST_NIGHTS_SQL.format(**_tables())
        rows = latest_rows(sql, [(*key, most) for key in keys])
        out: dict[tuple[int, str], list[tuple[int, int, datetime]]] = {}
        for player, currency, night, net, started in rows:
            out.setdefault((player, currency), []).append((night, net, moment(started)))
        return out


# The two sums written alike (`_sums_of`, `_save`).
_Sum = TypeVar("_Sum", ResultSum, NightSum)


# A match's part of its players' sums, by player: each count, and the net in cents.
_Parts = dict[int, dict[str, int]]


def _parts(match: Match, results: list[dict[str, Any]], finished: bool) -> tuple[_Parts, _Parts]:
    """What `results` of `match` (rows of `SUMMED` with their `player_id`), the match then
    finished or not, add to their players' sums: {player: `COUNTED` and "net"} for
    `ResultSum`, and for `NightSum` {player: "matches" and "net"} where the match counts
    (finished and played for money)."""
    counted = finished and bool(match.stakes())
    sums: _Parts = {}
    nights: _Parts = {}
    for row in results:
        net = row["net_cents"] if counted else 0
        sums[row["player_id"]] = {
            "played": 1,
            "finished": int(finished),
            "won": int(row["won"]),
            "staked": int(counted),
            **{name: row[name] for name in TALLY_FIELDS},
            "net": net,
        }
        if counted:
            nights[row["player_id"]] = {"matches": 1, "net": net}
    return sums, nights


def _first_counted(results: ResultQuerySet) -> datetime | None:
    """When the first of these results' finished matches played for money began."""
    counted = results.finished().filter(STAKED)
    first: datetime | None = counted.aggregate(first=Min("match__played_at"))["first"]
    return first


# Every save reads and writes its players' sums: the statements are written out, as Django's
# building of them cost more than the rest of a save (its bulk_update builds a CASE of every
# row for every column).


def summed_results(match_id: int) -> list[dict[str, Any]]:
    """The match's stored results: their `SUMMED` columns and their `player_id`."""
    columns = ["player_id", *SUMMED]
    sql = f"SELECT {', '.join(columns)} FROM games_result WHERE match_id = %s"
    return [dict(zip(columns, row, strict=True)) for row in fetch(sql, match_id)]


def _sums_of(model: type[_Sum], column: str, value: SQLParam, players: Iterable[int]) -> list[_Sum]:
    """The sums (`ResultSum`, `NightSum`) of these players whose `column` is `value`."""
    players = sorted(players)
    if not players:
        return []
    marks = ", ".join(["%s"] * len(players))
    sql = (
        f"SELECT {column_list(model, 't')} FROM {model._meta.db_table} t "
        f"WHERE t.{column} = %s AND t.player_id IN ({marks})"
    )
    return [loaded(model, row) for row in fetch(sql, value, *players)]


def _save(model: type[_Sum], rows: list[_Sum], count: str, columns: list[str]) -> None:
    """Store these sums, a statement a row: those that now count nothing (`count` 0) go."""
    gone = [r.pk for r in rows if r.pk and not getattr(r, count)]
    if gone:
        model.objects.filter(pk__in=gone).delete()
    # (`columns` are the sums' own columns, never a relation: get_field answers a Field.)
    table = model._meta.db_table
    fields = [cast("Field[Any, Any]", model._meta.get_field(name)) for name in columns]
    every = [field for field in model._meta.concrete_fields if not field.primary_key]

    def values(row: _Sum, fields: Sequence[Field[Any, Any]]) -> list[Any]:
        return [field.get_db_prep_save(getattr(row, field.attname), connection) for field in fields]

    new = [r for r in rows if r.pk is None and getattr(r, count)]
    kept = [r for r in rows if r.pk and getattr(r, count)]
    with connection.cursor() as cursor:
        if new:
            names, marks = ", ".join(f.column for f in every), ", ".join(["%s"] * len(every))
            sql = f"INSERT INTO {table} ({names}) VALUES ({marks})"
            cursor.executemany(sql, [values(r, every) for r in new])
        if kept:
            sets = ", ".join(f"{field.column} = %s" for field in fields)
            sql = f"UPDATE {table} SET {sets} WHERE id = %s"
            cursor.executemany(sql, [values(r, fields) + [r.pk] for r in kept])


def move_sums(
    match: Match,
    night_before: int,
    before: list[dict[str, Any]],
    was_finished: bool,
    night: int,
    after: list[dict[str, Any]],
) -> None:
    """Take the results `before` of `match` (rows of `SUMMED` with their `player_id`), as
    they were on `night_before`, the match then finished or not, out of their players' sums
    (`ResultSum`, `NightSum`), and put the match's results `after`, on `night`, in: written
    after the results, in the transaction that writes them, under the group's turn."""
    old, old_nights = _parts(match, before, was_finished)
    new, new_nights = _parts(match, after, match.finished is not None)
    at, currency = match.played_at, match.currency
    key = {"preset": match.preset, "currency": currency}
    players = {*old, *new}
    found = _sums_of(ResultSum, "preset", match.preset, players)
    stored = {s.player_id: s for s in found if s.currency == currency}
    sums = []
    for player in players:
        was, now = old.get(player, {}), new.get(player, {})
        moved = {name: now.get(name, 0) - was.get(name, 0) for name in (*COUNTED, "net")}
        if not any(moved.values()):
            continue
        s = stored.get(player) or ResultSum(player_id=player, **key)
        for name in COUNTED:
            setattr(s, name, getattr(s, name) + moved[name])
        s.net_cents += moved["net"]
        if now.get("staked"):
            s.first = min(s.first or at, at)
        elif was.get("staked") and s.first == at:  # their first such match no longer counts
            mine = Result.objects.filter(player=player, match__preset=match.preset)
            s.first = _first_counted(mine.filter(match__currency=currency))
        if not s.staked:
            s.first = None
        sums.append(s)
    _save(ResultSum, sums, "played", [*COUNTED, "net_cents", "first"])

    parts: dict[tuple[int, int], tuple[dict[str, int], dict[str, int]]] = {
        (night_before, p): (part, {}) for p, part in old_nights.items()
    }
    for p, part in new_nights.items():
        parts[night, p] = (parts.get((night, p), ({}, {}))[0], part)
    if not parts:
        return
    rows = {
        (n.night_id, n.player_id): n
        for on in {night_before, night}
        for n in _sums_of(NightSum, "night_id", on, {*old_nights, *new_nights})
        if n.currency == currency
    }
    nights = []
    for (on, player), (was, now) in parts.items():
        moved = {name: now.get(name, 0) - was.get(name, 0) for name in ("matches", "net")}
        if not any(moved.values()):
            continue
        n = rows.get((on, player)) or NightSum(
            night_id=on, player_id=player, currency=currency, started=at
        )
        n.matches += moved["matches"]
        n.net_cents += moved["net"]
        if now:
            n.started = min(n.started, at)
        elif n.matches and n.started == at:  # their first such match that night has gone
            mine = Result.objects.filter(player=player, match__night=on)
            n.started = _first_counted(mine.filter(match__currency=currency)) or at
        nights.append(n)
    _save(NightSum, nights, "matches", ["matches", "net_cents", "started"])
    # The match counted for its players' money before or after: their running totals, on
    # its end the next place of each player whose latest such match it is (a match played
    # to its end, a file imported oldest first), else anew (its results were written anew,
    # or went, or its place among theirs moved).
    if new_nights and not old_nights:
        _run_on(match, {p: part["net"] for p, part in new_nights.items()})
    else:
        run_totals({player for _, player in parts})


def recount_sums(players: Iterable[int]) -> None:
    """Sum these players' results anew (`ResultSum`, `NightSum`), from every stored result:
    where results change hands wholesale (a merge), or their match's rules, stakes or night
    may have changed (the admin), and their running totals (`run_totals`). The sums
    `move_sums()` keeps are these."""
    players = list(players)
    counted = Q(match__finished__isnull=False) & STAKED
    rows = (
        Result.objects.filter(player__in=players)
        .values("player", "match__preset", "match__currency")
        .annotate(
            **stat_sums(),
            staked=Count("pk", filter=counted),
            net=Sum("net_cents", filter=counted, default=0),
            first=Min("match__played_at", filter=counted),
        )
        .order_by()
    )
    sums = []
    for row in rows:
        player, preset, currency, net = (
            row.pop(k) for k in ("player", "match__preset", "match__currency", "net")
        )
        sums.append(
            ResultSum(player_id=player, preset=preset, currency=currency, net_cents=net, **row)
        )
    by_night = (
        Result.objects.filter(player__in=players)
        .finished()
        .filter(STAKED)
        .values_list("match__night", "player", "match__currency")
        .annotate(matches=Count("pk"), net=NET, started=Min("match__played_at"))
        .order_by()
    )
    nights = [
        NightSum(
            night_id=night,
            player_id=player,
            currency=currency,
            matches=matches,
            net_cents=net,
            started=started,
        )
        for night, player, currency, matches, net, started in by_night
    ]
    ResultSum.objects.filter(player__in=players).delete()
    NightSum.objects.filter(player__in=players).delete()
    ResultSum.objects.bulk_create(sums)
    NightSum.objects.bulk_create(nights)
    run_totals(players)
